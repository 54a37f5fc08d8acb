/* Run a command and report its wall time, peak resident memory and CPU time.
 *
 *   peakrss OUT COMMAND [ARG...]
 *
 * writes "SECONDS MAXRSS_KIB EXIT CPU_SECONDS" to the file OUT (CPU time is
 * user plus system time of the command, which a busy box disturbs less than
 * wall time). Measuring from a small
 * launcher matters: a child created by a large process (fork or vfork) starts
 * with that process's resident memory on its books, so a peak read from the
 * benchmark's own children would be the benchmark's size, not the command's. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: peakrss OUT COMMAND [ARG...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    int status;
    struct rusage usage;
    wait4(pid, &status, 0, &usage);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    FILE *out = fopen(argv[1], "w");
    if (out == NULL) return 1;
    double seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    double cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
                 usage.ru_stime.tv_usec / 1e6;
    fprintf(out, "%.9f %ld %d %.6f\n", seconds, usage.ru_maxrss,
            WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), cpu);
    fclose(out);
    return 0;
}
