/* A noughts & crosses bot compiled to WASI that misbehaves at its first MOVE, as the file `mode`
 * in its folder says, for tests/it/wasm.rs:
 *   outside  tries to read outside its folder (/etc/passwd, ../, the host's /tmp); prints
 *            ESCAPED if it could, else plays square 4 (or the first free one)
 *   socket   tries to accept a connection on every descriptor it might have been given; prints
 *            ESCAPED if one worked, else plays
 *   allocate allocates and touches memory without end
 *   loop     loops forever
 *   trap     executes `unreachable`
 *   stderr   writes to stderr without end
 *   scratch  makes a 2 GiB file in its scratch folder (sparse: its length counts), and plays
 *   folders  makes folders in its scratch folder without end
 *   sleep    sleeps for a day
 *   clock    plays, and reports on stderr what its clocks and randomness gave it
 * Built with: clang --target=wasm32-wasi -O2 -o hostile.wasm hostile.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <wasi/api.h>

static int can_read(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    fclose(f);
    return 1;
}

static void play(const char *board) {
    int square = board[4] == '.' ? 4 : (int)(strchr(board, '.') - board);
    printf("%d\n", square);
    fflush(stdout);
}

int main(void) {
    char mode[32] = "", line[256], board[16];
    FILE *f = fopen("mode", "r");
    if (!f || !fgets(mode, sizeof mode, f)) return 3;
    fclose(f);
    mode[strcspn(mode, "\n")] = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (sscanf(line, "MOVE %9s", board) != 1) continue;
        if (!strcmp(mode, "outside")) {
            int escaped = can_read("/etc/passwd") || can_read("../bot.toml") ||
                          can_read("/tmp/../etc/passwd") || fopen("new-file", "w") != NULL;
            fprintf(stderr, "outside: %s\n", escaped ? "escaped" : "denied");
            if (escaped) { puts("ESCAPED"); fflush(stdout); continue; }
        } else if (!strcmp(mode, "socket")) {
            int escaped = 0;
            for (__wasi_fd_t fd = 0; fd < 64; fd++) {
                __wasi_fd_t conn;
                if (__wasi_sock_accept(fd, 0, &conn) == 0) escaped = 1;
            }
            fprintf(stderr, "socket: %s\n", escaped ? "escaped" : "denied");
            if (escaped) { puts("ESCAPED"); fflush(stdout); continue; }
        } else if (!strcmp(mode, "allocate")) {
            for (;;) {
                volatile char *block = malloc(1 << 20);
                if (!block) abort();
                block[0] = 1;
            }
        } else if (!strcmp(mode, "loop")) {
            for (volatile unsigned long i = 0;; i++) {}
        } else if (!strcmp(mode, "trap")) {
            __builtin_trap();
        } else if (!strcmp(mode, "stderr")) {
            static char block[1 << 16];
            memset(block, 'e', sizeof block);
            for (;;) fwrite(block, 1, sizeof block, stderr);
        } else if (!strcmp(mode, "scratch")) {
            FILE *fill = fopen("/tmp/fill", "w");
            if (fill) {
                ftruncate(fileno(fill), (off_t)2 << 30);
                fclose(fill);
            }
        } else if (!strcmp(mode, "folders")) {
            char path[32];
            for (int i = 0;; i++) {
                snprintf(path, sizeof path, "/tmp/%d", i);
                mkdir(path, 0700);
            }
        } else if (!strcmp(mode, "sleep")) {
            sleep(86400);
        } else if (!strcmp(mode, "clock")) {
            struct timespec t;
            clock_gettime(CLOCK_MONOTONIC, &t);
            fprintf(stderr, "clock %lld.%09ld random %d\n", (long long)t.tv_sec, t.tv_nsec, rand());
            unsigned char bytes[4];
            arc4random_buf(bytes, sizeof bytes);
            fprintf(stderr, "secure %02x%02x%02x%02x\n", bytes[0], bytes[1], bytes[2], bytes[3]);
        }
        play(board);
    }
    return 0;
}
