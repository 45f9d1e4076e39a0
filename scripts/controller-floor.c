/* The least CPU time a paths controller can spend per turn on this machine, to put koth's figure
 * in scale: N instant bots started afresh every round (N² turns) as the rules require, run as
 * SCHED_BATCH tasks as koth runs them, and for each of a turn's two phases one write of the prompt
 * per bot and one read per answer, waiting in epoll. No game, no logs, no time limits.
 * Usage: controller-floor N ROUNDS BOT   (BOT: the path of scripts/instant-bot.c, built)
 * Prints the controller's own CPU time (user + system, children excluded) per turn. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_BOTS 64

static int to_bot[MAX_BOTS], from_bot[MAX_BOTS];

static void start_bots(int n, const char *bot, int epoll) {
    for (int i = 0; i < n; i++) {
        int in[2], out[2];
        if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) {
            perror("pipe2");
            exit(1);
        }
        posix_spawn_file_actions_t files;
        posix_spawn_file_actions_init(&files);
        posix_spawn_file_actions_adddup2(&files, in[0], 0);
        posix_spawn_file_actions_adddup2(&files, out[1], 1);
        pid_t pid;
        char *argv[] = {(char *)bot, "0", NULL};
        if (posix_spawn(&pid, bot, &files, NULL, argv, NULL)) {
            perror("posix_spawn");
            exit(1);
        }
        posix_spawn_file_actions_destroy(&files);
        struct sched_param param = {0};
        sched_setscheduler(pid, SCHED_BATCH, &param);
        close(in[0]);
        close(out[1]);
        to_bot[i] = in[1];
        from_bot[i] = out[0];
        fcntl(from_bot[i], F_SETFL, O_NONBLOCK);
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = i};
        epoll_ctl(epoll, EPOLL_CTL_ADD, from_bot[i], &event);
    }
}

static void stop_bots(int n, int epoll) {
    for (int i = 0; i < n; i++) {
        epoll_ctl(epoll, EPOLL_CTL_DEL, from_bot[i], NULL);
        close(to_bot[i]); /* end of input: the instant bot exits */
        close(from_bot[i]);
    }
    while (wait(NULL) > 0) {
    }
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s N ROUNDS BOT\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]), rounds = atoi(argv[2]);
    if (n < 1 || n > MAX_BOTS || rounds < 1) {
        fprintf(stderr, "N must be 1..%d and ROUNDS at least 1\n", MAX_BOTS);
        return 2;
    }
    int epoll = epoll_create1(0);
    char prompt[64], answer[256];
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    for (int round = 0; round < rounds; round++) {
        start_bots(n, argv[3], epoll);
        for (int phase = 0; phase < 2 * n * n; phase++) {
            int len = snprintf(prompt, sizeof prompt, "%s %d\n",
                               phase % 2 ? "ACTIVATE" : "DESTROY", phase / 2);
            for (int i = 0; i < n; i++) {
                if (write(to_bot[i], prompt, len) != len) {
                    perror("write");
                    return 1;
                }
            }
            for (int answers = 0; answers < n;) {
                struct epoll_event events[MAX_BOTS];
                int ready = epoll_wait(epoll, events, MAX_BOTS, -1);
                for (int j = 0; j < ready; j++) {
                    if (read(from_bot[events[j].data.u32], answer, sizeof answer) > 0) {
                        answers++;
                    }
                }
            }
        }
        stop_bots(n, epoll);
    }
    getrusage(RUSAGE_SELF, &after);
    double us = (after.ru_utime.tv_sec - before.ru_utime.tv_sec + after.ru_stime.tv_sec -
                 before.ru_stime.tv_sec) * 1e6 +
                (after.ru_utime.tv_usec - before.ru_utime.tv_usec + after.ru_stime.tv_usec -
                 before.ru_stime.tv_usec);
    printf("%.1f\n", us / ((double)rounds * n * n));
    return 0;
}
