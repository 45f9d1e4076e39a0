/* The least CPU time a rat-race controller can spend on its side of the pipe, on this machine:
 * it replays, message by message, what koth wrote to a lean-protocol bot (recorded as
 * docs/benchmarks.md says, issue 58's section) to scripts/ratrace-table-bot.c, which answers
 * from the recorded answers. Each TURN message goes out in one write, with the lines queued before it,
 * and its answer is read back as koth reads it: the bot and the controller on one CPU, the
 * bot a SCHED_BATCH task, as koth runs them. No game, no parsing, no logs.
 * Usage: ratrace-pipe-floor INPUT CPU TABLE_BOT ANSWERS
 * Prints, per board, the controller's own CPU time (user + system, children excluded) and the
 * specimens' moves it carried. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
           (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

/* The end of the line starting at `p`, past its newline. */
static const char *past_line(const char *p, const char *end) {
    const char *nl = memchr(p, '\n', end - p);
    return nl ? nl + 1 : end;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s INPUT CPU TABLE_BOT ANSWERS\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        perror(argv[1]);
        return 1;
    }
    const char *input = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    const char *end = input + st.st_size;
    madvise((void *)input, st.st_size, MADV_SEQUENTIAL);
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(atoi(argv[2]), &cpus);
    sched_setaffinity(0, sizeof cpus, &cpus); /* the bot inherits it */
    int to_bot[2], from_bot[2];
    if (pipe2(to_bot, O_CLOEXEC) || pipe2(from_bot, O_CLOEXEC)) {
        perror("pipe2");
        return 1;
    }
    /* koth enlarges its bots' pipes so that a turn's message is one write. */
    fcntl(to_bot[1], F_SETPIPE_SZ, 1 << 20);
    fcntl(from_bot[0], F_SETPIPE_SZ, 1 << 20);
    posix_spawn_file_actions_t files;
    posix_spawn_file_actions_init(&files);
    posix_spawn_file_actions_adddup2(&files, to_bot[0], 0);
    posix_spawn_file_actions_adddup2(&files, from_bot[1], 1);
    pid_t pid;
    char *bot_argv[] = {argv[3], argv[4], NULL};
    if (posix_spawn(&pid, argv[3], &files, NULL, bot_argv, NULL)) {
        perror("posix_spawn");
        return 1;
    }
    struct sched_param param = {0};
    sched_setscheduler(pid, SCHED_BATCH, &param);
    close(to_bot[0]);
    close(from_bot[1]);
    static char answer[1 << 20];
    size_t have = 0;
    long board = -1, moves = 0;
    double board_start = 0;
    const char *p = input;
    while (p < end) {
        /* One message: the lines up to and including a TURN's cells line. */
        const char *message = p;
        for (;;) {
            if (p >= end) break;
            if (!strncmp(p, "RATRACE ", 8)) {
                if (board >= 0) printf("board %ld: %.4f s, %ld moves\n", board, cpu_seconds() - board_start, moves);
                board++;
                moves = 0;
                board_start = cpu_seconds();
            }
            if (!strncmp(p, "TURN ", 5)) {
                char *q;
                strtol(p + 5, &q, 10);
                long n = strtol(q, &q, 10), born = strtol(q, NULL, 10);
                moves += n;
                p = past_line(p, end);
                for (long i = 0; i <= born; i++) p = past_line(p, end);
                break;
            }
            p = past_line(p, end);
        }
        for (const char *w = message; w < p;) {
            ssize_t n = write(to_bot[1], w, p - w);
            if (n <= 0) return 1;
            w += n;
        }
        if (p >= end && message[0] != 'T' && !memmem(message, p - message, "TURN ", 5)) break;
        /* The answer: bytes up to a newline. */
        for (;;) {
            char *nl = memchr(answer, '\n', have);
            if (nl) {
                size_t used = nl - answer + 1;
                memmove(answer, nl + 1, have - used);
                have -= used;
                break;
            }
            ssize_t n = read(from_bot[0], answer + have, sizeof answer - have);
            if (n <= 0) return 1;
            have += n;
        }
    }
    printf("board %ld: %.4f s, %ld moves\n", board, cpu_seconds() - board_start, moves);
    close(to_bot[1]);
    waitpid(pid, NULL, 0);
    return 0;
}
