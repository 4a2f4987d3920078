/*
 * powercut-shim: an LD_PRELOAD library that journals every write to, and every flush of, one
 * file (LMDB's data.mdb), so the power-cut harness can rebuild the file as a disk would hold it
 * after losing power: only what a flush made durable (SQLite's crash-test VFS, one level down).
 * The writes themselves still happen (the process runs normally until it is SIGKILLed).
 *
 * Environment:
 *   POWERCUT_TARGET   absolute path of the file to watch (opens of any other file are ignored)
 *   POWERCUT_JOURNAL  the journal to append to (created; one per process run)
 *   POWERCUT_NOFLUSH  when set, flushes do nothing and are not journaled, and a write on an
 *                     O_SYNC/O_DSYNC descriptor is journaled as an ordinary 'W' (a disk that
 *                     ignores every flush request, or a build that forgot them): the harness
 *                     must then report violations
 *
 * Journal grammar (little-endian), appended under a mutex, each record complete before the call
 * it describes returns to the caller:
 *   journal := record*
 *   record  := 'W' u64 seq  u64 offset  u32 length  byte[length]   a write that reached the OS
 *            | 'S' u64 seq  u64 offset  u32 length  byte[length]   a write on an O_SYNC/O_DSYNC
 *                                                                  descriptor: durable on return
 *            | 'F' u64 seq                                         a flush that returned: every
 *                                                                  'W' with a lower seq is durable
 *            | 'T' u64 seq  u64 length                             ftruncate (durable when flushed)
 * seq counts records. A flush's seq is taken when the flush STARTS: a write that returned before
 * it is covered, a write racing it (another thread) is not, which is the conservative reading.
 *
 * Calls watched: open/open64/openat/openat64/creat (to learn the descriptors of the target; an
 * openat relative to a directory descriptor is not resolved, LMDB and node open by full path),
 * close, pwrite/pwrite64, write (at the current offset), pwritev/pwritev64, writev, ftruncate,
 * fsync, fdatasync, sync_file_range (never a flush: it writes back one range and no metadata),
 * msync (counted as a flush of every watched descriptor: LMDB with MDB_WRITEMAP flushes that way;
 * edgetable does not use the write map, so this is a guard, not a path taken). syncfs/sync flush
 * everything.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 65536

static unsigned char watched[MAX_FDS]; /* 0 = no, 1 = yes, 2 = yes and O_SYNC/O_DSYNC */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t seq;
static int journal_fd = -1;
static const char *target;
static int no_flush;

#define REAL(name, ret, ...)                                                                 \
  static ret (*real_##name)(__VA_ARGS__);                                                    \
  if (!real_##name) real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name)

static ssize_t raw_write(int fd, const void *buf, size_t n) {
  REAL(write, ssize_t, int, const void *, size_t);
  const char *p = buf;
  while (n > 0) {
    ssize_t w = real_write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      abort(); /* a journal that cannot be written would make the harness lie */
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

__attribute__((constructor)) static void init(void) {
  target = getenv("POWERCUT_TARGET");
  no_flush = getenv("POWERCUT_NOFLUSH") != NULL;
  const char *journal = getenv("POWERCUT_JOURNAL");
  if (target && journal) {
    REAL(open, int, const char *, int, ...);
    journal_fd = real_open(journal, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (journal_fd < 0) abort();
  } else {
    target = NULL;
  }
}

static int is_target(const char *path) {
  if (!target || !path) return 0;
  char resolved[4096];
  if (realpath(path, resolved) == NULL) return 0;
  return strcmp(resolved, target) == 0;
}

static void watch(int fd, const char *path, int flags) {
  if (fd < 0 || fd >= MAX_FDS) return;
  watched[fd] = is_target(path) ? ((flags & (O_SYNC | O_DSYNC)) ? 2 : 1) : 0;
}

static int is_watched(int fd) { return fd >= 0 && fd < MAX_FDS && watched[fd] != 0; }

/* One record for a write of the iovecs at offset; the caller holds the lock. */
static void record_write(int fd, const struct iovec *iov, int n, off_t offset, ssize_t written) {
  if (written <= 0) return;
  unsigned char head[21];
  head[0] = watched[fd] == 2 && !no_flush ? 'S' : 'W';
  uint64_t s = seq++, off = (uint64_t)offset;
  uint32_t len = (uint32_t)written;
  memcpy(head + 1, &s, 8);
  memcpy(head + 9, &off, 8);
  memcpy(head + 17, &len, 4);
  raw_write(journal_fd, head, sizeof head);
  size_t left = (size_t)written;
  for (int i = 0; i < n && left > 0; i++) {
    size_t take = iov[i].iov_len < left ? iov[i].iov_len : left;
    raw_write(journal_fd, iov[i].iov_base, take);
    left -= take;
  }
}

static uint64_t flush_begin(void) {
  pthread_mutex_lock(&lock);
  uint64_t s = seq;
  pthread_mutex_unlock(&lock);
  return s;
}

static void flush_end(uint64_t covers, int rc) {
  if (rc != 0 || no_flush) return;
  pthread_mutex_lock(&lock);
  unsigned char rec[9];
  rec[0] = 'F';
  memcpy(rec + 1, &covers, 8);
  seq++;
  raw_write(journal_fd, rec, sizeof rec);
  pthread_mutex_unlock(&lock);
}

static int any_watched(void) {
  for (int i = 0; i < MAX_FDS; i++)
    if (watched[i]) return 1;
  return 0;
}

/* ---- opens ---- */

static int mode_of(int flags, va_list ap) { return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, int) : 0; }

int open(const char *path, int flags, ...) {
  REAL(open, int, const char *, int, ...);
  va_list ap;
  va_start(ap, flags);
  int mode = mode_of(flags, ap);
  va_end(ap);
  int fd = real_open(path, flags, mode);
  watch(fd, path, flags);
  return fd;
}
int open64(const char *path, int flags, ...) {
  REAL(open64, int, const char *, int, ...);
  va_list ap;
  va_start(ap, flags);
  int mode = mode_of(flags, ap);
  va_end(ap);
  int fd = real_open64(path, flags, mode);
  watch(fd, path, flags);
  return fd;
}
int openat(int dirfd, const char *path, int flags, ...) {
  REAL(openat, int, int, const char *, int, ...);
  va_list ap;
  va_start(ap, flags);
  int mode = mode_of(flags, ap);
  va_end(ap);
  int fd = real_openat(dirfd, path, flags, mode);
  if (dirfd == AT_FDCWD || path[0] == '/') watch(fd, path, flags);
  return fd;
}
int openat64(int dirfd, const char *path, int flags, ...) {
  REAL(openat64, int, int, const char *, int, ...);
  va_list ap;
  va_start(ap, flags);
  int mode = mode_of(flags, ap);
  va_end(ap);
  int fd = real_openat64(dirfd, path, flags, mode);
  if (dirfd == AT_FDCWD || path[0] == '/') watch(fd, path, flags);
  return fd;
}
int creat(const char *path, mode_t mode) { return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }

int close(int fd) {
  REAL(close, int, int);
  if (fd >= 0 && fd < MAX_FDS) watched[fd] = 0;
  return real_close(fd);
}

/* ---- writes ---- */

ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset) {
  REAL(pwrite, ssize_t, int, const void *, size_t, off_t);
  if (!is_watched(fd)) return real_pwrite(fd, buf, n, offset);
  pthread_mutex_lock(&lock);
  ssize_t r = real_pwrite(fd, buf, n, offset);
  struct iovec v = {(void *)buf, n};
  record_write(fd, &v, 1, offset, r);
  pthread_mutex_unlock(&lock);
  return r;
}
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t offset) { return pwrite(fd, buf, n, offset); }

ssize_t write(int fd, const void *buf, size_t n) {
  REAL(write, ssize_t, int, const void *, size_t);
  if (!is_watched(fd)) return real_write(fd, buf, n);
  pthread_mutex_lock(&lock);
  off_t at = lseek(fd, 0, SEEK_CUR);
  ssize_t r = real_write(fd, buf, n);
  struct iovec v = {(void *)buf, n};
  record_write(fd, &v, 1, at, r);
  pthread_mutex_unlock(&lock);
  return r;
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t offset) {
  REAL(pwritev, ssize_t, int, const struct iovec *, int, off_t);
  if (!is_watched(fd)) return real_pwritev(fd, iov, n, offset);
  pthread_mutex_lock(&lock);
  ssize_t r = real_pwritev(fd, iov, n, offset);
  record_write(fd, iov, n, offset, r);
  pthread_mutex_unlock(&lock);
  return r;
}
ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t offset) { return pwritev(fd, iov, n, offset); }

ssize_t writev(int fd, const struct iovec *iov, int n) {
  REAL(writev, ssize_t, int, const struct iovec *, int);
  if (!is_watched(fd)) return real_writev(fd, iov, n);
  pthread_mutex_lock(&lock);
  off_t at = lseek(fd, 0, SEEK_CUR);
  ssize_t r = real_writev(fd, iov, n);
  record_write(fd, iov, n, at, r);
  pthread_mutex_unlock(&lock);
  return r;
}

int ftruncate(int fd, off_t length) {
  REAL(ftruncate, int, int, off_t);
  if (!is_watched(fd)) return real_ftruncate(fd, length);
  pthread_mutex_lock(&lock);
  int r = real_ftruncate(fd, length);
  if (r == 0) {
    unsigned char rec[17];
    rec[0] = 'T';
    uint64_t s = seq++, len = (uint64_t)length;
    memcpy(rec + 1, &s, 8);
    memcpy(rec + 9, &len, 8);
    raw_write(journal_fd, rec, sizeof rec);
  }
  pthread_mutex_unlock(&lock);
  return r;
}
int ftruncate64(int fd, off_t length) { return ftruncate(fd, length); }

/* ---- flushes ---- */

int fsync(int fd) {
  REAL(fsync, int, int);
  if (!is_watched(fd)) return real_fsync(fd);
  if (no_flush) return 0;
  uint64_t s = flush_begin();
  int r = real_fsync(fd);
  flush_end(s, r);
  return r;
}

int fdatasync(int fd) {
  REAL(fdatasync, int, int);
  if (!is_watched(fd)) return real_fdatasync(fd);
  if (no_flush) return 0;
  uint64_t s = flush_begin();
  int r = real_fdatasync(fd);
  flush_end(s, r);
  return r;
}

int sync_file_range(int fd, off64_t offset, off64_t nbytes, unsigned int flags) {
  REAL(sync_file_range, int, int, off64_t, off64_t, unsigned int);
  if (!is_watched(fd)) return real_sync_file_range(fd, offset, nbytes, flags);
  if (no_flush) return 0;
  /* Even with WAIT_AFTER it flushes no metadata, and it covers one range only: never a flush. */
  return real_sync_file_range(fd, offset, nbytes, flags);
}

int msync(void *addr, size_t length, int flags) {
  REAL(msync, int, void *, size_t, int);
  if (!(flags & MS_SYNC) || !any_watched()) return real_msync(addr, length, flags);
  if (no_flush) return 0;
  uint64_t s = flush_begin();
  int r = real_msync(addr, length, flags);
  flush_end(s, r);
  return r;
}

int syncfs(int fd) {
  REAL(syncfs, int, int);
  if (!any_watched()) return real_syncfs(fd);
  if (no_flush) return 0;
  uint64_t s = flush_begin();
  int r = real_syncfs(fd);
  flush_end(s, r);
  return r;
}
