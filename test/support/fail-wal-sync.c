/*
 * Preloaded into a process (LD_PRELOAD): while the file named by FAIL_WAL_SYNC_FLAG exists,
 * fdatasync and fsync of any SQLite log (a file whose name ends in "-wal") fail with EIO, as
 * on a disk that fails. Everything else goes to the C library's own.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failing(int fd) {
  const char *flag = getenv("FAIL_WAL_SYNC_FLAG");
  if (flag == NULL || access(flag, F_OK) != 0) return 0;
  char link[64], path[PATH_MAX];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n < 4) return 0;
  path[n] = '\0';
  return strcmp(path + n - 4, "-wal") == 0;
}

int fdatasync(int fd) {
  static int (*real)(int);
  if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  if (failing(fd)) { errno = EIO; return -1; }
  return real(fd);
}

int fsync(int fd) {
  static int (*real)(int);
  if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  if (failing(fd)) { errno = EIO; return -1; }
  return real(fd);
}
