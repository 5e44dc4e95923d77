/*
 * The test process's own set-up, done before any test runs. A test that writes to a program that has already
 * ended (a child's standard input, a socket a host closed) must fail, not end the whole test process without a
 * word: SIGPIPE's default action did that once in a half of `make test` (its log stopped mid-run, no summary, no
 * failure named). SIGPIPE is ignored from the process's first moment, so such a write returns EPIPE instead.
 */
#ifndef ASSIST_TEST_PROCESS_H
#define ASSIST_TEST_PROCESS_H

/* 1 when SIGPIPE was ignored at the process's start (by this target's constructor), 0 otherwise. */
int assist_test_process_ignores_sigpipe(void);

#endif
