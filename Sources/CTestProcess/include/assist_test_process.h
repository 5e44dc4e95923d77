/*
 * The test process's own set-up, done before any test runs. A test that writes to a program that has already
 * ended (a child's standard input, a socket a host closed) must fail, not end the whole test process without a
 * word, as SIGPIPE's default action does (a half of `make test` once ended so, its log stopped mid-run with no
 * summary and no failure named; the cause was not found). SIGPIPE is ignored from the process's first moment, so
 * such a write returns EPIPE instead.
 */
#ifndef ASSIST_TEST_PROCESS_H
#define ASSIST_TEST_PROCESS_H

/* 1 when SIGPIPE was ignored at the process's start (by this target's constructor), 0 otherwise. */
int assist_test_process_ignores_sigpipe(void);

#endif
