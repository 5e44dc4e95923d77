#!/usr/bin/env python3
"""Writes the helper protocol's service code from the plugin ABI's headers: the one description of every
service operation is its function pointer in Sources/PluginAPI/include/assist/<service>.h.

Usage: scripts/gen-bridge.py [--check | --list | --layout]
  --check:  exit 1, naming the files, when the checked-in output differs from what the headers describe, or
            the headers differ from their ABI minor version's recorded layout (below)
  --list:   each operation, and whether the rules carry it or it is written by hand
  --layout: the headers' layout, every struct's fields and every service's functions in order, as recorded
            once per minor version in scripts/abi-layouts/MAJOR.MINOR.txt

A minor version's layout is frozen: a field appended, a reserved slot filled or a function added changes the
headers' layout, and --check refuses it until ASSIST_ABI_MINOR is bumped and the new minor's layout recorded
(`scripts/gen-bridge.py --layout > scripts/abi-layouts/1.1.txt`). Every recorded older layout must stay a
prefix of today's, struct by struct, reserved fields aside: the append-only promise of docs/plugin-abi.md.

From each `typedef struct assist_<name>_service { ... }` and its `ASSIST_<NAME>_SERVICE` id it writes
Sources/CPluginBridge/generated/services.h, and two Swift files with the same list of services
(Sources/PluginHost/Services/ServiceTables+List.swift, the host's table for each id, and
Sources/PluginKit/PluginHostHandle+Tables.swift, the typed tables a plugin looks up once). In services.h:
  - SVC_* and the service ids, in one list (the host's stand-in and the helper's proxies both use it);
  - one OP_* per operation (numbers follow the headers' order; the helper is always the host's own executable,
    started from the same build, so numbers never have to match across versions);
  - BRIDGE_HELPER_TABLES: the helper's proxy table for every service, in header order;
  - BRIDGE_HELPER_PROXIES: a proxy for each operation whose arguments the wire carries by rule;
  - BRIDGE_HOST_SERVE: the host's serving of those operations.
An operation the rules do not cover (callbacks, structs, arrays, buffers, or one listed in CUSTOM) is written
by hand: `h_<service>_<operation>` in the helper's files and `serve_<service>_<operation>` in the host's (or one function
for several, SERVED_TOGETHER), which the generated code calls. The rules, each a way a plugin's argument crosses the socket unchanged:
  - `const char *` (NULL travels as NULL), integers, `bool`, `double` and the ABI's int32 typedefs: by value;
  - `assist_db *` and the ABI's other opaque handles: as the pointer's value, which the host checks;
  - `T *` for such a scalar or handle (an out or in-out argument): a flag saying whether it is NULL, and the
    value it holds, so the host's table sees exactly what it would see in process; the value comes back;
  - `char **err`: a flag; the host's message comes back and is strdup'd for the plugin.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADERS = os.path.join(ROOT, "Sources/PluginAPI/include/assist")
OUTPUT = os.path.join(ROOT, "Sources/CPluginBridge/generated/services.h")
# The Swift lists of the same services: the host's tables by id, and PluginKit's typed tables.
HOST_LIST = os.path.join(ROOT, "Sources/PluginHost/Services/ServiceTables+List.swift")
KIT_TABLES = os.path.join(ROOT, "Sources/PluginKit/PluginHostHandle+Tables.swift")
# Each ABI minor version's frozen layout (--layout), MAJOR.MINOR.txt.
LAYOUTS = os.path.join(ROOT, "scripts/abi-layouts")
# The pointer fields of every versioned data struct, which the bridge clears before a struct crosses whole.
STRUCTS = os.path.join(ROOT, "Sources/CPluginBridge/generated/structs.h")

# Operations written by hand although their arguments fit the rules: they keep state on one side.
CUSTOM = {
    "audio_in.open",  # the helper keeps the stream's channel count for read's buffer
    "audio_in.close",
    "camera.unsubscribe",  # ends the frames the helper maps
    "camera.control",  # `value` goes in as well as out
    "audio_in.read",  # `buf` is a buffer of `frames` samples, not one value
}

# Operations served by hand by one function together (by its name), which tells them apart by `op`.
SERVED_TOGETHER = {
    "dialog.ask_choice": "dialog_question", "dialog.confirm": "dialog_question", "dialog.ask_text": "dialog_question",
    "storage.media_create": "storage_media_path", "storage.media_to_cache": "storage_media_path",
    "session.language": "session_string", "session.data_dir": "session_string", "session.cache_dir": "session_string",
    "session.share_dir": "session_string",
    "worker.schedule": "worker_task", "worker.post_main": "worker_task",
    "outbox.enqueue": "outbox_request", "outbox.send_now": "outbox_request",
    "camera.retain": "camera_frame", "camera.release": "camera_frame",
}

SCALARS = {  # C type: (wire kind, C type on the wire)
    "uint64_t": "u64", "int64_t": "i64", "uint32_t": "u32", "int32_t": "i32", "bool": "bool", "double": "f64",
    "size_t": "u64",
}
PUT = {"u64": "put_u64", "i64": "put_i64", "u32": "put_u32", "i32": "put_u32", "bool": "put_bool",
       "f64": "put_f64", "handle": "put_u64"}
GET = {"u64": "get_u64", "i64": "get_i64", "u32": "get_u32", "i32": "(int32_t)get_u32", "bool": "get_bool",
       "f64": "get_f64", "handle": "get_u64"}


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", "", text, flags=re.S)


def read_headers():
    typedefs, handles, services = {}, set(), []
    for path in sorted(glob.glob(os.path.join(HEADERS, "*.h"))):
        text = strip_comments(open(path, encoding="utf-8").read())
        for m in re.finditer(r"typedef\s+(u?int(?:8|16|32|64)_t)\s+(assist_\w+);", text):
            typedefs[m.group(2)] = m.group(1)
        for m in re.finditer(r"typedef\s+struct\s+(assist_\w+)\s+\1;", text):
            handles.add(m.group(1))
        ids = dict(re.findall(r'#define\s+(ASSIST_\w+_SERVICE)\s+"([^"]+)"', text))
        for m in re.finditer(r"typedef struct (assist_(\w+)_service) \{(.*?)\} \1;", text, re.S):
            name = m.group(2)
            macro = "ASSIST_%s_SERVICE" % name.upper()
            if macro not in ids:
                sys.exit("%s: %s has no %s" % (os.path.basename(path), m.group(1), macro))
            ops = []
            for f in re.finditer(r"([\w\s\*]+?)\(\*\s*(\w+)\)\s*\(([^;]*?)\);", m.group(3), re.S):
                ret = " ".join(f.group(1).replace("ASSIST_NULLABLE", "").split())
                params = [" ".join(p.replace("ASSIST_NULLABLE", "").split()) for p in f.group(3).split(",")]
                ops.append({"name": f.group(2), "ret": ret, "params": params})
            services.append({"name": name, "struct": m.group(1), "macro": macro, "id": ids[macro],
                             "file": os.path.basename(path), "ops": ops})
    services.sort(key=lambda s: SERVICE_ORDER.index(s["name"]) if s["name"] in SERVICE_ORDER else 999)
    return typedefs, handles, services


# The order services were first served in (the SVC_* numbers); a new service goes at the end.
SERVICE_ORDER = ["log", "speech", "dialog", "settings", "storage", "session", "clock", "worker", "events", "input",
                 "cues", "playback", "outbox", "audio_in", "camera", "thread_check"]


def parse_param(text, typedefs, handles):
    """(kind, C type, name) for one parameter, or None when the rules do not carry it."""
    m = re.match(r"^(.*?)(\w+)$", text)
    if not m:
        return None
    ctype, name = " ".join(m.group(1).replace("*", " * ").split()), m.group(2)
    ctype = ctype.replace("* *", "**").strip()
    base = typedefs.get(ctype, ctype)
    if ctype == "const char *":
        return ("str", "const char *", name)
    if base in SCALARS:
        return (SCALARS[base], ctype, name)
    if ctype.endswith(" *") and ctype[:-2] in handles:
        return ("handle", ctype, name)
    if ctype == "char **":
        return ("err", ctype, name)
    if ctype.endswith(" **") and ctype[:-3] in handles:
        return ("out:handle", ctype[:-3] + " *", name)
    if ctype.endswith(" *"):
        inner = ctype[:-2]
        if typedefs.get(inner, inner) in SCALARS:
            return ("out:" + SCALARS[typedefs.get(inner, inner)], inner, name)
    return None


def return_kind(ret, typedefs):
    if ret == "void":
        return "void"
    if ret == "assist_status":
        return "status"
    base = typedefs.get(ret, ret)
    return SCALARS.get(base)


def read_structs():
    """Each versioned data struct (it starts with struct_size and holds no function pointers, so not a
    service, host or plugin table), in header order, with the names of its pointer fields."""
    structs = []
    for path in sorted(glob.glob(os.path.join(HEADERS, "*.h"))):
        text = strip_comments(open(path, encoding="utf-8").read())
        for m in re.finditer(r"typedef struct (assist_\w+) \{(.*?)\} \1;", text, re.S):
            body = m.group(2)
            if "(*" in body or not re.match(r"\s*uint32_t struct_size;", body):
                continue
            pointers = []
            for decl in body.split(";"):
                decl = " ".join(decl.replace("ASSIST_NULLABLE", "").split())
                if "*" in decl:
                    pointers.append(re.match(r"^.*?(\w+)(?:\[\w+\])?$", decl).group(1))
            structs.append({"name": m.group(1), "pointers": pointers, "file": os.path.basename(path)})
    return structs


def render_structs(structs):
    out = ["/* GENERATED by scripts/gen-bridge.py from the headers in Sources/PluginAPI/include/assist: do not edit by hand.",
           "   Regenerate with `scripts/gen-bridge.py`; PluginHostTests fails while this file and the headers disagree. */",
           "#ifndef ASSIST_BRIDGE_STRUCTS_H", "#define ASSIST_BRIDGE_STRUCTS_H", "",
           "/* The pointer fields of each versioned struct, for marshal.h's put_whole: a struct crosses the socket whole",
           "   (every field, one added in a later minor version too) except its pointers, which mean nothing in the",
           "   other process. Each is cleared before the struct is sent, and the bridge sends what the ones it",
           "   carries point to after it, so a pointer field a header gains arrives NULL, never as an address. */"]
    for st in structs:
        out.append("#define BRIDGE_POINTERS_%s(X, s)%s /* %s */"
                   % (st["name"], "".join(" X(s, %s)" % p for p in st["pointers"]), st["file"]))
    out += ["", "#endif", ""]
    return "\n".join(out)


def layout():
    """Every struct in the headers with its fields in order, one line each, comments and spacing left out."""
    lines = []
    for path in sorted(glob.glob(os.path.join(HEADERS, "*.h"))):
        text = strip_comments(open(path, encoding="utf-8").read())
        for m in re.finditer(r"typedef struct (assist_\w+) \{(.*?)\} \1;", text, re.S):
            fields = [" ".join(d.replace("ASSIST_NULLABLE", "").split()) for d in m.group(2).split(";")]
            lines.append("%s: %s" % (m.group(1), "; ".join(f for f in fields if f)))
    return "\n".join(lines) + "\n"


def abi_version():
    text = open(os.path.join(HEADERS, "core.h"), encoding="utf-8").read()
    return tuple(int(re.search(r"#define ASSIST_ABI_%s (\d+)" % part, text).group(1)) for part in ("MAJOR", "MINOR"))


def kept_fields(line):
    """A layout line's struct name and its fields but the reserved ones, which a newer minor may fill."""
    name, _, fields = line.partition(": ")
    return name, [f for f in fields.split("; ") if not re.search(r"\breserved\w*(\[\w+\])?$", f)]


def layout_problems():
    major, minor = abi_version()
    current = layout()
    recorded = {}
    for path in glob.glob(os.path.join(LAYOUTS, "*.txt")):
        version = re.match(r"(\d+)\.(\d+)\.txt$", os.path.basename(path))
        if version:
            recorded[(int(version.group(1)), int(version.group(2)))] = open(path, encoding="utf-8").read()
    problems = []
    mine = recorded.get((major, minor))
    if mine is None:
        problems.append("ABI %d.%d has no recorded layout: once its structs are final, run "
                        "scripts/gen-bridge.py --layout > scripts/abi-layouts/%d.%d.txt" % (major, minor, major, minor))
    elif mine != current:
        problems.append("the headers differ from ABI %d.%d's recorded layout (scripts/abi-layouts/%d.%d.txt): a field "
                        "appended, a reserved slot filled or a function added makes a new minor version; bump "
                        "ASSIST_ABI_MINOR and record its layout" % (major, minor, major, minor))
    now = dict(kept_fields(line) for line in current.splitlines())
    for (old_major, old_minor), text in sorted(recorded.items()):
        if old_major != major or old_minor >= minor:
            continue
        for line in text.splitlines():
            name, fields = kept_fields(line)
            if now.get(name, [])[:len(fields)] != fields:
                problems.append("%s no longer begins with ABI %d.%d's fields: structs and service tables are "
                                "append-only within a major version" % (name, old_major, old_minor))
    return problems


def plan(services, typedefs, handles):
    for service in services:
        for op in service["ops"]:
            op["enum"] = "OP_%s_%s" % (service["name"].upper(), op["name"].upper())
            op["key"] = "%s.%s" % (service["name"], op["name"])
            params = op["params"]
            if not params or not re.match(r"^const assist_host \*\s*h$", params[0]):
                sys.exit("%s: %s does not take `const assist_host *h` first" % (service["file"], op["key"]))
            parsed = [parse_param(p, typedefs, handles) for p in params[1:]]
            kind = return_kind(op["ret"], typedefs)
            op["args"] = parsed
            op["kind"] = kind
            op["generated"] = kind is not None and None not in parsed and op["key"] not in CUSTOM
            op["c_params"] = ", ".join(params)


def c_ret(op):
    return op["ret"]


def helper_proxy(service, op):
    lines = ["static %s h_%s_%s(%s) {" % (c_ret(op), service["name"], op["name"], pretty(op["c_params"])),
             "    (void)h;", "    bmsg *m = bmsg_new(BRIDGE_REQUEST, %s);" % op["enum"]]
    for kind, ctype, name in op["args"]:
        if kind == "str":
            lines.append("    put_str(m, %s);" % name)
        elif kind == "err":
            lines.append("    put_bool(m, %s != NULL);" % name)
        elif kind.startswith("out:"):
            lines.append("    put_bool(m, %s != NULL);" % name)
        elif kind == "handle":
            lines.append("    put_u64(m, (uint64_t)(uintptr_t)%s);" % name)
        else:
            cast = "(uint32_t)" if kind in ("u32", "i32") else ""
            lines.append("    %s(m, %s%s);" % (PUT[kind], cast, name))
    lines.append("    bmsg *reply = bchan_call(&helper_chan, m, -1);")
    kind = op["kind"]
    if kind == "status":
        lines.append("    assist_status result = reply != NULL ? (assist_status)get_u32(reply) : ASSIST_E_IO;")
    elif kind == "bool":
        lines.append("    bool result = reply != NULL && get_u32(reply) == 1;")
    elif kind != "void":
        lines.append("    %s result = reply != NULL ? (%s)%s(reply) : 0;" % (op["ret"], op["ret"], GET[kind]))
    # Out values are written as the host's table wrote them: for a status, only on success.
    written = "reply != NULL && result == ASSIST_OK" if kind == "status" else "reply != NULL"
    for akind, ctype, name in op["args"]:
        if akind.startswith("out:"):
            wire = akind[4:]
            value = "(%s)(uintptr_t)get_u64(reply)" % ctype if wire == "handle" else "(%s)%s(reply)" % (ctype, GET[wire])
            lines.append("    %s%s%s_value = reply != NULL ? %s : 0;" % (ctype, "" if ctype.endswith("*") else " ", name, value))
            lines.append("    if (%s && %s != NULL) *%s = %s_value;" % (written, name, name, name))
        elif akind == "err":
            lines.append("    if (%s != NULL) {" % name)
            lines.append("        const char *text = reply != NULL ? get_str(reply) : NULL;")
            lines.append("        *%s = text != NULL ? strdup(text) : NULL;" % name)
            lines.append("    }")
    lines.append("    bmsg_free(reply);")
    if kind != "void":
        lines.append("    return result;")
    lines.append("}")
    return lines


def host_case(service, op):
    table = "t"
    lines = ["    case %s: {" % op["enum"]]
    names = []
    for kind, ctype, name in op["args"]:
        if kind == "str":
            lines.append("        const char *%s = get_str(req);" % name)
            names.append(name)
        elif kind == "err":
            lines.append("        bool want_%s = get_bool(req);" % name)
            lines.append("        char *%s_text = NULL;" % name)
            names.append("want_%s ? &%s_text : NULL" % (name, name))
        elif kind.startswith("out:"):
            lines.append("        bool want_%s = get_bool(req);" % name)
            lines.append("        %s%s%s_value = 0;" % (ctype, "" if ctype.endswith("*") else " ", name))
            names.append("want_%s ? &%s_value : NULL" % (name, name))
        elif kind == "handle":
            lines.append("        %s%s = (%s)(uintptr_t)get_u64(req);" % (ctype, name, ctype) if ctype.endswith("*")
                         else "        %s %s = (%s)(uintptr_t)get_u64(req);" % (ctype, name, ctype))
            names.append(name)
        else:
            lines.append("        %s %s = (%s)%s(req);" % (ctype, name, ctype, GET[kind]))
            names.append(name)
    lines.append("        const %s *%s = bridge_service(b, SVC_%s);" % (service["struct"], table, service["name"].upper()))
    lines.append("        if (req->bad || %s == NULL || !ASSIST_HAS_FIELD(%s, %s, %s) || %s->%s == NULL) {"
                 % (table, service["struct"], table, op["name"], table, op["name"]))
    lines.append("            put_u32(rep, (uint32_t)(req->bad ? ASSIST_E_INVALID : ASSIST_E_UNSUPPORTED));")
    lines.append("            break;")
    lines.append("        }")
    call = "%s->%s(h%s)" % (table, op["name"], "".join(", " + n for n in names))
    kind = op["kind"]
    if kind == "void":
        lines.append("        %s;" % call)
    elif kind == "status":
        lines.append("        put_u32(rep, (uint32_t)%s);" % call)
    elif kind == "bool":
        lines.append("        put_u32(rep, %s ? 1 : 0);" % call)
    else:
        cast = "(uint32_t)" if kind in ("u32", "i32") else ""
        lines.append("        %s(rep, %s%s);" % (PUT[kind], cast, call))
    for akind, ctype, name in op["args"]:
        if akind.startswith("out:"):
            wire = akind[4:]
            value = "(uint64_t)(uintptr_t)%s_value" % name if wire == "handle" else "%s_value" % name
            cast = "(uint32_t)" if wire in ("u32", "i32") else ""
            lines.append("        %s(rep, %s%s);" % (PUT[wire], cast, value))
        elif akind == "err":
            lines.append("        put_str(rep, %s_text);" % name)
            lines.append("        free(%s_text);" % name)
    lines.append("        break;")
    lines.append("    }")
    return lines


def serving(service, op):
    """The name of the hand-written host function that serves `op`, after `serve_`."""
    return SERVED_TOGETHER.get(op["key"], "%s_%s" % (service["name"], op["name"]))


def pretty(params):
    return params.replace(" *", " *").replace("* ", "*")


def render(services):
    out = ["/* GENERATED by scripts/gen-bridge.py from the headers in Sources/PluginAPI/include/assist: do not edit by hand.",
           "   Regenerate with `scripts/gen-bridge.py`; PluginHostTests fails while this file and the headers disagree.",
           "   docs/plugin-isolation.md says how an operation crosses the socket. */",
           "#ifndef ASSIST_BRIDGE_SERVICES_H", "#define ASSIST_BRIDGE_SERVICES_H", "",
           "/* The services the bridge carries, in one list. */", "enum {"]
    out += ["    SVC_%s," % s["name"].upper() for s in services]
    out += ["    SVC_COUNT", "};", "",
            "#define BRIDGE_SERVICE_IDS { \\"]
    out += ["    %s, \\" % s["macro"] for s in services]
    out += ["}", "", "/* helper -> host: one operation per service function, after OP_GET_SERVICE (ops.h). */",
            "enum {"]
    first = True
    for s in services:
        for op in s["ops"]:
            out.append("    %s%s, /* %s */" % (op["enum"], " = OP_FIRST_SERVICE" if first else "", op["key"]))
            first = False
    out += ["    OP_SERVICE_END", "};", ""]
    # What is written by hand, declared for every file of either side (helper_bridge.h, host_bridge.h).
    out += ["#ifdef BRIDGE_HELPER_SIDE",
            "/* Written by hand in the helper's files (helper_*.c): the operations the rules do not carry. */"]
    for s in services:
        for op in s["ops"]:
            if not op["generated"]:
                out.append("BRIDGE_PRIVATE %s h_%s_%s(%s);" % (op["ret"], s["name"], op["name"], pretty(op["c_params"])))
    out += ["#endif /* BRIDGE_HELPER_SIDE */", ""]
    out += ["#ifdef BRIDGE_HOST_SIDE",
            "/* Served by hand in the host's files (host_*.c): the operations the rules do not carry. */"]
    declared = set()
    for s in services:
        for op in s["ops"]:
            if not op["generated"] and serving(s, op) not in declared:
                declared.add(serving(s, op))
                out.append("BRIDGE_PRIVATE void serve_%s(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, "
                           "bmsg *rep);" % serving(s, op))
    out += ["#endif /* BRIDGE_HOST_SIDE */", "#endif /* ASSIST_BRIDGE_SERVICES_H */", ""]
    # Helper side: included by helper.c alone, with BRIDGE_HELPER defined: the proxies and their tables.
    out += ["#if defined(BRIDGE_HELPER) && !defined(ASSIST_BRIDGE_HELPER_PROXIES)",
            "#define ASSIST_BRIDGE_HELPER_PROXIES",
            "/* The proxies the rules carry. */"]
    for s in services:
        for op in s["ops"]:
            if op["generated"]:
                out += helper_proxy(s, op)
    out += ["", "/* Every service's proxy table, in header order; the host says which slots it fills (OP_GET_SERVICE). */"]
    for s in services:
        out.append("static const %s %s_proxy = {" % (s["struct"], s["name"]))
        out.append("    .struct_size = sizeof(%s)," % s["struct"])
        out += ["    .%s = h_%s_%s," % (op["name"], s["name"], op["name"]) for op in s["ops"]]
        out.append("};")
    out += ["", "#define BRIDGE_PROXY_TABLES { \\"]
    for s in services:
        out.append("    {%s, &%s_proxy, sizeof %s_proxy}, \\" % (s["macro"], s["name"], s["name"]))
    out += ["}", "#endif /* BRIDGE_HELPER */", ""]
    # Host side: likewise, by host_serve.c alone with BRIDGE_HOST defined.
    out += ["#if defined(BRIDGE_HOST) && !defined(ASSIST_BRIDGE_HOST_SERVING)", "#define ASSIST_BRIDGE_HOST_SERVING",
            "/* Serves one service operation; false for an operation that is not one, which the host serves by hand "
            "(host_serve.c). */",
            "static bool bridge_serve_generated(assist_bridge *b, const assist_host *h, uint32_t op, bmsg *req, bmsg *rep) {",
            "    switch (op) {"]
    for s in services:
        for op in s["ops"]:
            if op["generated"]:
                out += host_case(s, op)
            else:
                out += ["    case %s:" % op["enum"], "        serve_%s(b, h, op, req, rep);" % serving(s, op),
                        "        break;"]
    out += ["    default:", "        return false;", "    }", "    return true;", "}", "#endif /* BRIDGE_HOST */", ""]
    return "\n".join(out)


def camel(name):
    first, *rest = name.split("_")
    return first + "".join(part.capitalize() for part in rest)


GENERATED_SWIFT = ["// GENERATED by scripts/gen-bridge.py from the headers in Sources/PluginAPI/include/assist: do not edit",
                   "// by hand. Regenerate with `scripts/gen-bridge.py`; PluginHostTests fails while this file and the",
                   "// headers disagree."]


def render_host_list(services):
    out = GENERATED_SWIFT + ["", "import PluginAPI", "", "extension ServiceTables {",
                             "    /// Every service this host serves, by the header's own id macros: the one list of service ids",
                             "    /// (discovery checks manifests' required services against its keys). A service's table is",
                             "    /// `<service>Table`, in its folder under Services/.",
                             "    nonisolated(unsafe) static let byID: [String: UnsafeRawPointer] = ["]
    out += ["        %s: UnsafeRawPointer(%sTable)," % (s["macro"], camel(s["name"])) for s in services]
    out += ["    ]", "}", ""]
    return "\n".join(out)


def render_kit_tables(services):
    out = GENERATED_SWIFT + ["", "import PluginABI", "import PluginAPI", "", "extension PluginHostHandle {",
                             "    /// The host's service tables, each nil when the host does not serve it (or serves one smaller",
                             "    /// than 1.0's).",
                             "    public struct Tables: @unchecked Sendable {  // because: the tables are const and live as long as the plugin"]
    out += ["        public let %s: UnsafePointer<%s>?" % (camel(s["name"]), s["struct"]) for s in services]
    out += ["", "        init(_ raw: UnsafePointer<assist_host>) {"]
    out += ["            %s = PluginHostHandle.lookUp(raw, %s, %s.self)" % (camel(s["name"]), s["macro"], s["struct"])
            for s in services]
    out += ["        }", "    }", "}", ""]
    return "\n".join(out)


def main():
    typedefs, handles, services = read_headers()
    plan(services, typedefs, handles)
    outputs = {OUTPUT: render(services), HOST_LIST: render_host_list(services),
               KIT_TABLES: render_kit_tables(services), STRUCTS: render_structs(read_structs())}
    if "--check" in sys.argv:
        stale = [path for path, text in outputs.items()
                 if not os.path.exists(path) or open(path, encoding="utf-8").read() != text]
        for path in stale:
            print("%s differs from what the headers describe: run scripts/gen-bridge.py" % os.path.relpath(path, ROOT))
        problems = layout_problems()
        for problem in problems:
            print(problem)
        if stale or problems:
            sys.exit(1)
        return
    if "--layout" in sys.argv:
        sys.stdout.write(layout())
        return
    if "--list" in sys.argv:
        for s in services:
            for op in s["ops"]:
                print("%-32s %s" % (op["key"], "generated" if op["generated"] else "by hand"))
        return
    for path, text in outputs.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
