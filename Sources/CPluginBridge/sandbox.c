/* The helper's sandbox (sandbox.h, docs/security.md). Four layers, each set up as far as the kernel allows:
   no_new_privs and no capabilities; resource limits; a Landlock ruleset (files, TCP, signals and abstract
   sockets outside the helper); a seccomp-bpf filter (libseccomp) that refuses what the plugin never needs,
   since every service it is given travels over the socket it already has. */
#define _GNU_SOURCE
#include "sandbox.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/landlock.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <pthread.h>
#include <ucontext.h>
#include <unistd.h>

/* ---- Landlock: the kernel's numbers, newer than Debian 12's headers ------------------------------------- */

#define LL_FS_EXECUTE (1ull << 0)
#define LL_FS_WRITE_FILE (1ull << 1)
#define LL_FS_READ_FILE (1ull << 2)
#define LL_FS_READ_DIR (1ull << 3)
#define LL_FS_REFER (1ull << 13)    /* ABI 2 */
#define LL_FS_TRUNCATE (1ull << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ull << 15) /* ABI 5 */
#define LL_NET_BIND_TCP (1ull << 0) /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ull << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ull << 0) /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ull << 1)

/* The ruleset's attributes as ABI 6 has them; older kernels are given the part they know. */
struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

/* Everything a file (not a folder) can be given. */
#define LL_FILE_RIGHTS (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

static uint64_t ll_fs_rights(int abi) {
    uint64_t all = (1ull << 13) - 1; /* ABI 1: execute .. make_sym */
    if (abi >= 2) all |= LL_FS_REFER;
    if (abi >= 3) all |= LL_FS_TRUNCATE;
    if (abi >= 5) all |= LL_FS_IOCTL_DEV;
    return all;
}

/* Allows `rights` beneath `path` (or on it, for a file); a path that does not exist is left out. */
static void ll_allow(int ruleset, const char *path, uint64_t rights, uint64_t handled) {
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode)) rights &= LL_FILE_RIGHTS;
    struct landlock_path_beneath_attr rule = {.allowed_access = rights & handled, .parent_fd = fd};
    syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
    close(fd);
}

/* What every helper reads, whatever its plugin: the system's libraries and data, the dynamic loader's
   files, the time zone, fonts, the processor count, and its own /proc entry. */
static const char *const system_reads[] = {
    "/usr", "/lib", "/lib64", "/lib32", "/libx32", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
    "/etc/localtime", "/etc/timezone", "/etc/fonts", "/etc/alternatives", "/etc/locale.alias",
    "/etc/locale.conf", "/etc/default/locale", "/sys/devices/system/cpu", "/proc/self", "/dev/urandom",
    "/dev/random", "/dev/zero",
};

/* The folders of every file the process has mapped (the executable, the Swift runtime wherever the
   toolchain put it, a sanitizer's runtime): what was loaded before the plugin, its libraries may need. */
static void ll_allow_mapped(int ruleset, uint64_t rights, uint64_t handled) {
    FILE *maps = fopen("/proc/self/maps", "re");
    if (maps == NULL) return;
    char line[4200], last[4096] = "";
    while (fgets(line, sizeof line, maps) != NULL) {
        char *path = strchr(line, '/');
        if (path == NULL) continue;
        path[strcspn(path, "\n")] = 0;
        char *slash = strrchr(path, '/');
        if (slash == NULL || slash == path) continue;
        *slash = 0;
        if (strcmp(path, last) == 0) continue;
        snprintf(last, sizeof last, "%s", path);
        ll_allow(ruleset, path, rights, handled);
    }
    fclose(maps);
}

static int threads_running(void) {
    DIR *dir = opendir("/proc/self/task");
    if (dir == NULL) return -1;
    int count = 0;
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL)
        if (entry->d_name[0] != '.') count++;
    closedir(dir);
    return count;
}

/* Sets up Landlock: the Landlock ABI (0 when none), or -1 with `why`. */
static int landlock(const sandbox_policy *p, char *why, size_t cap) {
    int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) {
        snprintf(why, cap, "this kernel has no Landlock (%s)", errno == EOPNOTSUPP ? "turned off" : "not built in");
        return -1;
    }
    int threads = threads_running();
    if (threads != 1) {
        snprintf(why, cap, "Landlock would cover one of its %d threads", threads);
        return -1;
    }
    struct ll_ruleset_attr attr = {.handled_access_fs = ll_fs_rights(abi)};
    size_t size = offsetof(struct ll_ruleset_attr, handled_access_net);
    if (abi >= 4) {
        attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
        size = offsetof(struct ll_ruleset_attr, scoped);
    }
    if (abi >= 6) {
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
        size = sizeof attr;
    }
    int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (ruleset < 0) {
        snprintf(why, cap, "Landlock refused the ruleset (%s)", strerror(errno));
        return -1;
    }
    uint64_t handled = attr.handled_access_fs;
    uint64_t reading = LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR;
    for (size_t i = 0; i < sizeof system_reads / sizeof system_reads[0]; i++)
        ll_allow(ruleset, system_reads[i], reading, handled);
    ll_allow_mapped(ruleset, reading, handled);
    for (size_t i = 0; i < p->reads; i++) ll_allow(ruleset, p->read[i], reading, handled);
    ll_allow(ruleset, "/dev/null", LL_FS_READ_FILE | LL_FS_WRITE_FILE, handled);
    /* Its data and cache: everything but running programs from them (exec is refused anyway). */
    for (size_t i = 0; i < p->writes; i++) ll_allow(ruleset, p->write[i], handled & ~LL_FS_EXECUTE, handled);
    int rc = (int)syscall(SYS_landlock_restrict_self, ruleset, 0);
    int saved = errno;
    close(ruleset);
    if (rc != 0) {
        snprintf(why, cap, "Landlock could not be applied (%s)", strerror(saved));
        return -1;
    }
    return abi;
}

/* ---- seccomp: refused calls trap, and are answered EPERM here ----------------------------------------- */

static uint8_t kind_of[1024];
static uint32_t denied_kinds;

uint32_t sandbox_denied(void) { return __atomic_load_n(&denied_kinds, __ATOMIC_RELAXED); }

/* SIGSYS from the filter: the call did not run; it returns EPERM and its kind is counted. A plugin that puts
   a handler of its own in place only loses the counting: the call still did not run. */
static void on_sigsys(int sig, siginfo_t *info, void *context) {
    (void)sig;
    int nr = info->si_syscall;
    uint32_t kind = nr >= 0 && nr < (int)sizeof kind_of ? kind_of[nr] : ASSIST_SANDBOX_DENIED_SYSTEM;
    __atomic_or_fetch(&denied_kinds, kind ? kind : ASSIST_SANDBOX_DENIED_SYSTEM, __ATOMIC_RELAXED);
    ucontext_t *uc = context;
#if defined(__x86_64__)
    uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
#elif defined(__aarch64__)
    uc->uc_mcontext.regs[0] = (unsigned long long)-EPERM;
#else
    (void)uc;
#endif
}

static int trap(scmp_filter_ctx ctx, int nr, uint8_t kind, unsigned count, const struct scmp_arg_cmp *cmp) {
    if (nr < 0) return 0; /* not a call on this architecture */
    if (nr < (int)sizeof kind_of) kind_of[nr] = kind;
    int rc = seccomp_rule_add_array(ctx, SCMP_ACT_TRAP, nr, count, cmp);
    return rc == -EEXIST ? 0 : rc;
}

/* Starting another program is answered EPERM whatever the caller's signal mask: glibc's posix_spawn (behind
   system() and popen()) blocks every signal first, and a trap the process cannot take kills it. The kernel hands
   each such call to a listener thread of the helper's own (SECCOMP_RET_USER_NOTIF), which counts its kind and
   answers EPERM; without that (libseccomp or kernel too old) the filter answers EPERM itself, uncounted. */
static bool notify_supported;

static void *answer_refused(void *argument) {
    int fd = (int)(intptr_t)argument;
    struct seccomp_notif *request = NULL;
    struct seccomp_notif_resp *response = NULL;
    if (seccomp_notify_alloc(&request, &response) != 0) return NULL;
    for (;;) {
        memset(request, 0, sizeof *request);
        if (seccomp_notify_receive(fd, request) != 0) {
            if (errno == EINTR || errno == ENOENT) continue;
            break;
        }
        int nr = request->data.nr;
        uint32_t kind = nr >= 0 && nr < (int)sizeof kind_of && kind_of[nr] ? kind_of[nr] : ASSIST_SANDBOX_DENIED_PROGRAM;
        __atomic_or_fetch(&denied_kinds, kind, __ATOMIC_RELAXED);
        memset(response, 0, sizeof *response);
        response->id = request->id;
        response->error = -EPERM;
        (void)seccomp_notify_respond(fd, response);
    }
    seccomp_notify_free(request, response);
    return NULL;
}

static int refuse_program(scmp_filter_ctx ctx, int nr, unsigned count, const struct scmp_arg_cmp *cmp) {
    if (nr < 0) return 0;
    if (nr < (int)sizeof kind_of) kind_of[nr] = ASSIST_SANDBOX_DENIED_PROGRAM;
    int rc = seccomp_rule_add_array(ctx, notify_supported ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(EPERM), nr, count, cmp);
    return rc == -EEXIST ? 0 : rc;
}

#define REFUSE_PROGRAM(name) failed |= refuse_program(ctx, SCMP_SYS(name), 0, NULL) != 0

#define TRAP(name, kind) failed |= trap(ctx, SCMP_SYS(name), kind, 0, NULL) != 0
#define TRAP_IF(name, kind, ...)                                                                                  \
    do {                                                                                                          \
        struct scmp_arg_cmp cmp[] = {__VA_ARGS__};                                                                \
        failed |= trap(ctx, SCMP_SYS(name), kind, sizeof cmp / sizeof cmp[0], cmp) != 0;                          \
    } while (0)

static bool seccomp_filter(char *why, size_t cap) {
    struct sigaction action = {0};
    action.sa_sigaction = on_sigsys;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGSYS, &action, NULL) != 0) {
        snprintf(why, cap, "no handler for SIGSYS");
        return false;
    }
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == NULL) {
        snprintf(why, cap, "libseccomp could not start a filter");
        return false;
    }
    bool failed = false;
    scmp_datum_t self = (scmp_datum_t)getpid();
    /* The network: no socket of its own (the one to the host is given), so no connection anywhere. */
    TRAP(socket, ASSIST_SANDBOX_DENIED_NETWORK);
    TRAP(connect, ASSIST_SANDBOX_DENIED_NETWORK);
    TRAP(bind, ASSIST_SANDBOX_DENIED_NETWORK);
    TRAP(listen, ASSIST_SANDBOX_DENIED_NETWORK);
    TRAP(accept, ASSIST_SANDBOX_DENIED_NETWORK);
    TRAP(accept4, ASSIST_SANDBOX_DENIED_NETWORK);
    /* Other programs: threads only. clone3's flags are out of reach in memory, so it is "not here" and the C
       library falls back to clone, whose flags are read. */
    notify_supported = seccomp_api_get() >= 6;
    REFUSE_PROGRAM(execve);
    REFUSE_PROGRAM(execveat);
    REFUSE_PROGRAM(fork);
    REFUSE_PROGRAM(vfork);
    {
        struct scmp_arg_cmp not_thread[] = {SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0)};
        failed |= refuse_program(ctx, SCMP_SYS(clone), 1, not_thread) != 0;
    }
    failed |= seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) != 0;
    /* Other processes: their memory, signals and limits. */
    TRAP(ptrace, ASSIST_SANDBOX_DENIED_PROCESS);
    TRAP(process_vm_readv, ASSIST_SANDBOX_DENIED_PROCESS);
    TRAP(process_vm_writev, ASSIST_SANDBOX_DENIED_PROCESS);
    TRAP(process_madvise, ASSIST_SANDBOX_DENIED_PROCESS);
    TRAP(kcmp, ASSIST_SANDBOX_DENIED_PROCESS);
    TRAP(pidfd_getfd, ASSIST_SANDBOX_DENIED_PROCESS);
    TRAP(pidfd_send_signal, ASSIST_SANDBOX_DENIED_PROCESS);
    TRAP(migrate_pages, ASSIST_SANDBOX_DENIED_PROCESS);
    TRAP(move_pages, ASSIST_SANDBOX_DENIED_PROCESS);
    TRAP_IF(kill, ASSIST_SANDBOX_DENIED_PROCESS, SCMP_A0(SCMP_CMP_NE, self));
    TRAP_IF(tgkill, ASSIST_SANDBOX_DENIED_PROCESS, SCMP_A0(SCMP_CMP_NE, self));
    TRAP_IF(rt_sigqueueinfo, ASSIST_SANDBOX_DENIED_PROCESS, SCMP_A0(SCMP_CMP_NE, self));
    TRAP_IF(rt_tgsigqueueinfo, ASSIST_SANDBOX_DENIED_PROCESS, SCMP_A0(SCMP_CMP_NE, self));
    TRAP_IF(prlimit64, ASSIST_SANDBOX_DENIED_PROCESS, SCMP_A0(SCMP_CMP_NE, 0));
    /* The system: file systems, kernel code and keys, namespaces, io_uring (which would reach the network
       past this filter), typing into the terminal. */
    static const char *const system_calls[] = {
        "mount", "umount2", "pivot_root", "chroot", "mount_setattr", "move_mount", "open_tree", "fsopen", "fsmount",
        "fspick", "bpf", "perf_event_open", "kexec_load", "kexec_file_load", "init_module", "finit_module",
        "delete_module", "unshare", "setns", "keyctl", "add_key", "request_key", "reboot", "swapon", "swapoff",
        "acct", "syslog", "iopl", "ioperm", "userfaultfd", "open_by_handle_at", "name_to_handle_at",
        "io_uring_setup", "io_uring_enter", "io_uring_register", "fanotify_init", "quotactl", "settimeofday",
        "clock_settime", "clock_adjtime", "adjtimex", "lookup_dcookie", "vhangup", "personality",
    };
    for (size_t i = 0; i < sizeof system_calls / sizeof system_calls[0]; i++)
        failed |= trap(ctx, seccomp_syscall_resolve_name(system_calls[i]), ASSIST_SANDBOX_DENIED_SYSTEM, 0, NULL) != 0;
    TRAP_IF(ioctl, ASSIST_SANDBOX_DENIED_SYSTEM, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI));
    TRAP_IF(ioctl, ASSIST_SANDBOX_DENIED_SYSTEM, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX));
    int rc = failed ? -EINVAL : seccomp_load(ctx);
    int listener = rc == 0 && notify_supported ? seccomp_notify_fd(ctx) : -1;
    seccomp_release(ctx);
    if (listener >= 0) {
        /* Started inside the filter, like every thread from now on. */
        pthread_t thread;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&thread, &attributes, answer_refused, (void *)(intptr_t)listener) != 0) {
            /* No listener: those calls then fail with ENOSYS, refused all the same. */
            close(listener);
        }
        pthread_attr_destroy(&attributes);
    }
    if (rc != 0) {
        snprintf(why, cap, "the seccomp filter was not loaded (%s)", strerror(-rc));
        return false;
    }
    return true;
}

/* ---- limits and privileges ---------------------------------------------------------------------------- */

static bool limit(int resource, uint64_t value) {
    struct rlimit now;
    if (getrlimit(resource, &now) != 0) return false;
    rlim_t to = (rlim_t)value;
    if (now.rlim_max != RLIM_INFINITY && now.rlim_max < to) to = now.rlim_max;
    struct rlimit wanted = {to, to}; /* soft and hard alike: it cannot raise them again */
    return setrlimit(resource, &wanted) == 0;
}

/* The address space the helper has mapped now, in bytes (what it loaded before the plugin, and a sanitizer's
   shadow, which is terabytes): the plugin's allowance comes on top. */
static uint64_t mapped_now(void) {
    FILE *status = fopen("/proc/self/status", "re");
    if (status == NULL) return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, status) != NULL)
        if (sscanf(line, "VmSize: %llu kB", &kb) == 1) break;
    fclose(status);
    return (uint64_t)kb << 10;
}

static bool limits(const sandbox_policy *p) {
    bool ok = limit(RLIMIT_CORE, 0);
    if (p->memory_mb > 0) ok &= limit(RLIMIT_AS, mapped_now() + (p->memory_mb << 20));
    if (p->open_files > 0) ok &= limit(RLIMIT_NOFILE, p->open_files);
    return ok;
}

/* A helper started by root gives up root's powers: none of the capabilities, now or through any program. */
static bool drop_capabilities(void) {
    if (geteuid() != 0) {
        struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
        struct __user_cap_data_struct data[2];
        if (syscall(SYS_capget, &header, data) != 0) return false;
        if ((data[0].effective | data[1].effective | data[0].permitted | data[1].permitted) == 0) return true;
    }
    for (int cap = 0; cap <= 63; cap++) prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[2];
    memset(none, 0, sizeof none);
    return syscall(SYS_capset, &header, none) == 0;
}

/* ---- the policy -------------------------------------------------------------------------------------- */

bool sandbox_parse(int argc, char **argv, sandbox_policy *p, char *why, size_t cap) {
    memset(p, 0, sizeof *p);
    for (int i = 0; i < argc; i++) {
        const char *word = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(word, "--sandbox") == 0) {
            p->enabled = true;
        } else if (strcmp(word, "--require") == 0) {
            p->required = true;
        } else if (strcmp(word, "--read") == 0 && value != NULL && p->reads < 32) {
            p->read[p->reads++] = value;
            i++;
        } else if (strcmp(word, "--write") == 0 && value != NULL && p->writes < 8) {
            p->write[p->writes++] = value;
            i++;
        } else if (strcmp(word, "--memory-mb") == 0 && value != NULL) {
            p->memory_mb = strtoull(value, NULL, 10);
            i++;
        } else if (strcmp(word, "--files") == 0 && value != NULL) {
            p->open_files = strtoull(value, NULL, 10);
            i++;
        } else {
            snprintf(why, cap, "the helper does not know \"%s\"", word);
            return false;
        }
    }
    return true;
}

static void add_note(char *note, size_t cap, const char *text) {
    size_t used = strlen(note);
    if (used + 2 < cap) snprintf(note + used, cap - used, "%s%s", used ? "; " : "", text);
}

uint32_t sandbox_apply(const sandbox_policy *p, char *note, size_t cap) {
    note[0] = 0;
    if (!p->enabled) {
        add_note(note, cap, "the sandbox is turned off (plugins.sandbox = false)");
        return 0;
    }
    uint32_t layers = 0;
    char why[200];
    if (drop_capabilities()) layers |= ASSIST_SANDBOX_NO_CAPABILITIES;
    else add_note(note, cap, "its capabilities could not be dropped");
    if (limits(p)) layers |= ASSIST_SANDBOX_RLIMITS;
    else add_note(note, cap, "its resource limits could not be set");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0) layers |= ASSIST_SANDBOX_NO_NEW_PRIVS;
    else add_note(note, cap, "no_new_privs could not be set");
    int abi = layers & ASSIST_SANDBOX_NO_NEW_PRIVS ? landlock(p, why, sizeof why) : -1;
    if (abi > 0) layers |= ASSIST_SANDBOX_LANDLOCK | ((uint32_t)abi << 8);
    else add_note(note, cap, abi == 0 || !(layers & ASSIST_SANDBOX_NO_NEW_PRIVS) ? "no Landlock" : why);
    if (layers & ASSIST_SANDBOX_NO_NEW_PRIVS && seccomp_filter(why, sizeof why)) layers |= ASSIST_SANDBOX_SECCOMP;
    else add_note(note, cap, layers & ASSIST_SANDBOX_NO_NEW_PRIVS ? why : "no seccomp filter");
    return layers;
}

uint32_t assist_sandbox_probe(char *note, size_t cap) {
    if (cap > 0) note[0] = 0;
    uint32_t layers = ASSIST_SANDBOX_NO_NEW_PRIVS | ASSIST_SANDBOX_RLIMITS | ASSIST_SANDBOX_NO_CAPABILITIES;
    int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi >= 1) layers |= ASSIST_SANDBOX_LANDLOCK | ((uint32_t)abi << 8);
    else add_note(note, cap, "this kernel has no Landlock");
    if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0) layers |= ASSIST_SANDBOX_SECCOMP;
    else add_note(note, cap, "this kernel has no seccomp");
    return layers;
}
