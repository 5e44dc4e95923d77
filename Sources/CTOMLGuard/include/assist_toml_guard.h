/*
 * assist_toml_guard.h - toml++'s assertions, answered instead of aborting.
 *
 * TOMLKit 0.6.0 builds toml++ 3.4.0 with its assertions on in a debug build, and some of them are wrong about
 * malformed files: "x = [2, }" fails one inside the value parser where a release build goes on to report
 * "could not determine value type". Assist reads files people edit by hand, so a typo must be a sentence, never
 * an abort. assist_toml_survives reads the text once with toml++ behind a guard: an assertion failed inside it
 * returns here (leaking what toml++ held, as TOMLKit leaks anyway) and says so.
 */
#ifndef ASSIST_TOML_GUARD_H
#define ASSIST_TOML_GUARD_H

/** 1 when toml++ gave up on `text` on an assertion (the file cannot be read), 0 when it read it or refused it
    with a parse error of its own (TOMLKit's parse then says which). Any thread. */
int assist_toml_survives(const char *text);

#endif
