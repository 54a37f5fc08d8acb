/* The kernel's floor for a process scan: for every pid, read stat, status and
 * cmdline and the cwd link, with nothing else around it. runctx's benchmark
 * compares its scan against this, per process. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char buf[65536];

static void slurp(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return;
    while (read(fd, buf, sizeof buf) > 0) {}
    close(fd);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    char path[64];
    for (int r = 0; r < rounds; r++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        DIR *proc = opendir("/proc");
        struct dirent *entry;
        long count = 0;
        while ((entry = readdir(proc)) != NULL) {
            if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
            snprintf(path, sizeof path, "/proc/%s/stat", entry->d_name); slurp(path);
            snprintf(path, sizeof path, "/proc/%s/status", entry->d_name); slurp(path);
            snprintf(path, sizeof path, "/proc/%s/cmdline", entry->d_name); slurp(path);
            snprintf(path, sizeof path, "/proc/%s/cwd", entry->d_name);
            readlink(path, buf, sizeof buf);
            count++;
        }
        closedir(proc);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
        printf("%ld %.9f\n", count, seconds);
    }
    return 0;
}
