/* A rat-race bot of the lean protocol that decides nothing: it reads each message as the lean
 * C bot does (bots/ratrace-lean-c) and answers each TURN with the next line of a file of
 * answers recorded from a real bot on the same boards. Through it, what koth spends per turn is
 * koth's side of the pipe alone (docs/benchmarks.md, issue 58's section).
 * Usage: ratrace-table-bot ANSWERS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *buf;
static size_t cap = 1 << 20, start, end;

/* The next line of stdin (NUL-terminated in place), or NULL at end of input. */
static char *next_line(void) {
    for (;;) {
        char *nl = memchr(buf + start, '\n', end - start);
        if (nl) {
            char *line = buf + start;
            *nl = 0;
            start = nl - buf + 1;
            return line;
        }
        if (start > 0) {
            memmove(buf, buf + start, end - start);
            end -= start;
            start = 0;
        }
        if (end == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            if (!buf) exit(1);
        }
        ssize_t n = read(0, buf + end, cap - end);
        if (n <= 0) return NULL;
        end += n;
    }
}

int main(int argc, char **argv) {
    FILE *answers = argc == 2 ? fopen(argv[1], "r") : NULL;
    if (!answers) {
        fprintf(stderr, "usage: %s ANSWERS\n", argv[0]);
        return 2;
    }
    buf = malloc(cap);
    char *answer = NULL;
    size_t answer_cap = 0;
    char *line;
    while ((line = next_line())) {
        if (strncmp(line, "TURN ", 5) != 0) continue;
        char *p = strchr(line + 5, ' ');
        strtol(p + 1, &p, 10);
        long born = strtol(p, NULL, 10);
        for (long i = 0; i <= born; i++) /* the newborns' genomes, then the cells */
            if (!next_line()) return 0;
        ssize_t len = getline(&answer, &answer_cap, answers);
        if (len <= 0) return 1;
        for (ssize_t done = 0; done < len;) {
            ssize_t w = write(1, answer + done, len - done);
            if (w <= 0) return 1;
            done += w;
        }
    }
    return 0;
}
