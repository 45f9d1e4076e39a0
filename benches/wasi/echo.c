/* The benchmarks' bot (benches/wasm.rs): answers every line with `ok` and the line, built both
 * natively (gcc) and to WASI (clang --target=wasm32-wasi), so a process's round trip and a WASI
 * bot's are timed on the same code. */
#include <stdio.h>

int main(void) {
    static char line[1 << 16];
    while (fgets(line, sizeof line, stdin)) {
        fputs("ok ", stdout);
        fputs(line, stdout);
        fflush(stdout);
    }
    return 0;
}
