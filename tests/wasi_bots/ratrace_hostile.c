/* A hostile rat-race player for koth's direct call (tests/it/ratrace_direct.rs), built as a
 * WASI reactor with its misdeed chosen when compiled: -DLOOP (ratrace_move never returns),
 * -DTRAP (it traps), -DINVALID (it answers 9, no move), -DALLOCATE (it allocates without end),
 * -DSTDERR (it writes to stderr without end), -DSLEEP (it sleeps for a day), -DMISSING (no
 * ratrace_move at all). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int8_t views[53 * 15 * 25];

__attribute__((export_name("ratrace_views"))) int8_t *ratrace_views(void) { return views; }

#ifndef MISSING
__attribute__((export_name("ratrace_move"))) int32_t ratrace_move(int64_t genome_low,
                                                                 int64_t genome_high,
                                                                 int32_t cell) {
    (void)genome_low;
    (void)genome_high;
    (void)cell;
#if defined(LOOP)
    for (volatile int spin = 1; spin;) {
    }
#elif defined(TRAP)
    __builtin_trap();
#elif defined(INVALID)
    return 9;
#elif defined(STDERR)
    static char line[1 << 16];
    memset(line, 'e', sizeof line - 1);
    line[sizeof line - 1] = '\n';
    for (;;) fwrite(line, 1, sizeof line, stderr);
#elif defined(SLEEP)
    sleep(86400);
#elif defined(ALLOCATE)
    for (;;) {
        volatile char *block = malloc(1 << 20);
        if (!block) abort();
        block[0] = 1;
    }
#endif
    return 5; /* (1, 0) */
}
#endif
