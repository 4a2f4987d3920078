/*
 * powercut-shim: an LD_PRELOAD library that journals every write to, every flush of, and every
 * name change of the files in one folder (the store's; today LMDB's data.mdb is the only durable
 * file edgetable keeps there), so the power-cut harness can rebuild the folder as a disk would hold
 * it after losing power: only what a flush made durable (SQLite's crash-test VFS, one level down).
 * The calls themselves still happen (the process runs normally until it is SIGKILLed).
 *
 * Environment:
 *   POWERCUT_DIR      absolute path of the folder to watch (as realpath gives it). Watched: every
 *                     regular file directly in it except lock.mdb (LMDB's lock file: shared memory,
 *                     never durable state); files in subfolders are not watched.
 *   POWERCUT_JOURNAL  the journal to append to (created; one per process run)
 *   POWERCUT_NOFLUSH  when set, flushes (of files and of the folder) do nothing and are not
 *                     journaled, and a write on an O_SYNC/O_DSYNC descriptor is journaled as an
 *                     ordinary 'W' (a disk that ignores every flush request, or a build that forgot
 *                     them): the harness must then report violations
 *
 * Journal grammar (little-endian), appended under a mutex, each record complete before the call
 * it describes returns to the caller:
 *   journal := record*
 *   record  := 'O' u64 seq  u32 file  u8 created  u32 n  byte[n] name
 *                 an open of the folder's file `name` returned descriptor-backed `file` (a new id
 *                 per open; the harness binds it to the file the folder held under `name` at that
 *                 point). created = 1: this open made the file (it did not exist just before)
 *            | 'W' u64 seq  u32 file  u64 offset  u32 length  byte[length]
 *                 a write that reached the OS, at the offset it really landed at (O_APPEND too)
 *            | 'S' u64 seq  u32 file  u64 offset  u32 length  byte[length]
 *                 a write on an O_SYNC/O_DSYNC descriptor (or pwritev2 RWF_DSYNC): durable on return
 *            | 'T' u64 seq  u32 file  u64 length
 *                 ftruncate, or an open with O_TRUNC of an existing file (durable when flushed)
 *            | 'F' u64 seq  u32 file
 *                 fsync/fdatasync of `file` returned: every 'W'/'T' of THAT file (whatever
 *                 descriptor wrote it) with a lower seq is durable; other files' are not
 *            | 'D' u64 seq
 *                 fsync/fdatasync of the folder returned: every name change ('O' created, 'U',
 *                 'R', 'L') with a lower seq is durable
 *            | 'A' u64 seq
 *                 sync(), or syncfs() on the folder's file system, returned: every record with a
 *                 lower seq is durable (all files' writes and all name changes)
 *            | 'U' u64 seq  u32 n  byte[n] name
 *                 unlink of the folder's file `name` (or a rename of it out of the folder)
 *            | 'R' u64 seq  u32 n  byte[n] from  u32 m  byte[m] to
 *                 rename of `from` to `to`, both in the folder (`to`, if it existed, is replaced)
 *            | 'L' u64 seq  u32 n  byte[n] from  u32 m  byte[m] to
 *                 hard link of `from` as `to`, both in the folder: one file under two names
 *                 (`to` did not exist: link fails with EEXIST otherwise)
 * seq counts records. A flush's seq is taken when the flush STARTS: a write that returned before
 * it is covered, a write racing it (another thread) is not, which is the conservative reading.
 *
 * Name changes (the file-creation model): creating, unlinking, renaming and linking a file change the
 * folder, not the file, so only a flush of the folder ('D') or sync/syncfs ('A') makes them
 * durable; a flush of the file itself does not (POSIX promises nothing more; ext4 often does
 * more, other file systems less). A file created during the cycle without a later folder flush is
 * absent after the cut, whatever was written to it and flushed. The harness keeps the durable name
 * changes and drops the rest ('last-flush'), or keeps a random prefix of the rest ('reorder': a
 * journaling file system commits name changes in order).
 *
 * Descriptors are identified by number plus (st_dev, st_ino) checked at each call, so a descriptor
 * closed behind the shim's back (libuv closes with syscall(SYS_close)) and its number reused by a
 * socket or pipe is never mistaken for a watched file. dup/dup2/dup3 carry the watch over;
 * fcntl(F_DUPFD) does not (nothing here uses it).
 *
 * Calls watched: open/open64/openat/openat64/creat (an openat relative to a directory descriptor
 * is resolved through /proc/self/fd), close, pwrite/pwrite64, write, pwritev/pwritev64,
 * pwritev2/pwritev64v2, writev (on an O_APPEND descriptor: at the end the file had), ftruncate,
 * fsync, fdatasync, sync_file_range (never a flush: it writes back one range and no metadata),
 * msync(MS_SYNC) (counted as a flush of every watched file open: LMDB with MDB_WRITEMAP flushes
 * that way; edgetable does not use the write map, so this is a guard, not a path taken), syncfs,
 * sync, unlink/unlinkat/remove, rename/renameat/renameat2, link/linkat.
 * Calls the model cannot describe abort the process (the harness then reports the worker's exit,
 * never a wrong image): truncate() by path, fallocate/posix_fallocate, a writable shared mmap,
 * copy_file_range/sendfile into a watched file, a rename into the folder from outside it or
 * with RENAME_EXCHANGE, a hard link into the folder from outside it. A journal write that fails aborts too.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define MAX_FDS 65536

enum kind { NONE = 0, PLAIN = 1, SYNCED = 2, FOLDER = 3 };
struct watch {
  unsigned char kind;
  uint32_t file;
  dev_t dev;
  ino_t ino;
};

static struct watch watched[MAX_FDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t seq;
static uint32_t next_file;
static int journal_fd = -1;
static char folder[PATH_MAX];
static const char *folder_base; /* the folder's own name, to spot an open of the folder itself */
static dev_t folder_dev;
static int no_flush;

#define REAL(name, ret, ...)                                                                 \
  static ret (*real_##name)(__VA_ARGS__);                                                    \
  if (!real_##name) real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name)

static void refuse(const char *why) {
  static const char prefix[] = "powercut-shim: outside the model, aborting: ";
  REAL(write, ssize_t, int, const void *, size_t);
  (void)!real_write(2, prefix, sizeof prefix - 1);
  (void)!real_write(2, why, strlen(why));
  (void)!real_write(2, "\n", 1);
  abort();
}

static void raw_write(int fd, const void *buf, size_t n) {
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
}

__attribute__((constructor)) static void init(void) {
  const char *dir = getenv("POWERCUT_DIR");
  const char *journal = getenv("POWERCUT_JOURNAL");
  no_flush = getenv("POWERCUT_NOFLUSH") != NULL;
  if (!dir || !journal || dir[0] != '/' || strlen(dir) >= sizeof folder) return;
  strcpy(folder, dir);
  size_t len = strlen(folder);
  while (len > 1 && folder[len - 1] == '/') folder[--len] = '\0';
  folder_base = strrchr(folder, '/') + 1;
  struct stat st;
  if (stat(folder, &st) != 0) abort(); /* the harness creates the store before any worker */
  folder_dev = st.st_dev;
  REAL(open, int, const char *, int, ...);
  journal_fd = real_open(journal, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (journal_fd < 0) abort();
}

/* ---- where a path points ---- */

enum place { ELSEWHERE = 0, IN_FOLDER = 1, THE_FOLDER = 2 };

/*
 * Whether `path` (relative to dirfd) names a file directly in the folder (its bare name copied to
 * `name`, lock.mdb excluded) or the folder itself. The last component is not resolved: it is the
 * name the folder holds, whatever it is.
 */
static enum place locate(int dirfd, const char *path, char name[NAME_MAX + 1]) {
  if (journal_fd < 0 || !path) return ELSEWHERE;
  char full[PATH_MAX * 2];
  if (path[0] == '/') {
    if (strlen(path) >= PATH_MAX) return ELSEWHERE;
    strcpy(full, path);
  } else {
    char base[PATH_MAX];
    if (dirfd == AT_FDCWD) {
      if (!getcwd(base, sizeof base)) return ELSEWHERE;
    } else {
      char link[64];
      snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
      ssize_t n = readlink(link, base, sizeof base - 1);
      if (n <= 0) return ELSEWHERE;
      base[n] = '\0';
    }
    if ((size_t)snprintf(full, sizeof full, "%s/%s", base, path) >= sizeof full) return ELSEWHERE;
  }
  size_t len = strlen(full);
  while (len > 1 && full[len - 1] == '/') full[--len] = '\0';
  char *slash = strrchr(full, '/');
  const char *last = slash + 1;
  char resolved[PATH_MAX];
  if (strcmp(last, ".") == 0 || strcmp(last, "..") == 0 || strcmp(last, folder_base) == 0) {
    if (realpath(full, resolved) && strcmp(resolved, folder) == 0) return THE_FOLDER;
    if (strcmp(last, folder_base) != 0) return ELSEWHERE;
  }
  if (strlen(last) > NAME_MAX) return ELSEWHERE;
  if (slash == full) strcpy(resolved, "/");
  else {
    *slash = '\0';
    if (!realpath(full, resolved)) return ELSEWHERE;
  }
  if (strcmp(resolved, folder) != 0 || strcmp(last, "lock.mdb") == 0) return ELSEWHERE;
  strcpy(name, last);
  return IN_FOLDER;
}

static int is_regular_name(int dirfd, const char *path) {
  struct stat st;
  return fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* ---- records (the caller holds the lock) ---- */

static void put(unsigned char **at, const void *v, size_t n) {
  memcpy(*at, v, n);
  *at += n;
}

static void record_open(uint32_t file, int created, const char *name) {
  unsigned char head[18], *at = head;
  uint64_t s = seq++;
  uint32_t n = (uint32_t)strlen(name);
  unsigned char c = created ? 1 : 0;
  put(&at, "O", 1);
  put(&at, &s, 8);
  put(&at, &file, 4);
  put(&at, &c, 1);
  put(&at, &n, 4);
  raw_write(journal_fd, head, sizeof head);
  raw_write(journal_fd, name, n);
}

static void record_truncate(uint32_t file, uint64_t length) {
  unsigned char rec[21], *at = rec;
  uint64_t s = seq++;
  put(&at, "T", 1);
  put(&at, &s, 8);
  put(&at, &file, 4);
  put(&at, &length, 8);
  raw_write(journal_fd, rec, sizeof rec);
}

/* One record for a write of the iovecs that landed at offset. */
static void record_write(int fd, const struct iovec *iov, int n, off_t offset, ssize_t written, int durable) {
  if (written <= 0) return;
  unsigned char head[25], *at = head;
  uint64_t s = seq++, off = (uint64_t)offset;
  uint32_t len = (uint32_t)written;
  put(&at, (durable || watched[fd].kind == SYNCED) && !no_flush ? "S" : "W", 1);
  put(&at, &s, 8);
  put(&at, &watched[fd].file, 4);
  put(&at, &off, 8);
  put(&at, &len, 4);
  raw_write(journal_fd, head, sizeof head);
  size_t left = (size_t)written;
  for (int i = 0; i < n && left > 0; i++) {
    size_t take = iov[i].iov_len < left ? iov[i].iov_len : left;
    raw_write(journal_fd, iov[i].iov_base, take);
    left -= take;
  }
}

static void record_names(char kind, const char *from, const char *to) {
  unsigned char head[13], *at = head;
  uint64_t s = seq++;
  uint32_t n = (uint32_t)strlen(from);
  put(&at, &kind, 1);
  put(&at, &s, 8);
  put(&at, &n, 4);
  raw_write(journal_fd, head, sizeof head);
  raw_write(journal_fd, from, n);
  if (to) {
    uint32_t m = (uint32_t)strlen(to);
    raw_write(journal_fd, &m, 4);
    raw_write(journal_fd, to, m);
  }
}

/* ---- descriptors ---- */

/* The watch on fd, or NONE when fd no longer refers to the file it was opened on. */
static enum kind kind_of(int fd) {
  if (fd < 0 || fd >= MAX_FDS || watched[fd].kind == NONE) return NONE;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_dev != watched[fd].dev || st.st_ino != watched[fd].ino) {
    watched[fd].kind = NONE;
    return NONE;
  }
  return (enum kind)watched[fd].kind;
}
static int is_watched_file(int fd) {
  enum kind k = kind_of(fd);
  return k == PLAIN || k == SYNCED;
}

/* After an open of `place`/`name` returned fd; the caller holds the lock for IN_FOLDER. */
static void watch(int fd, enum place place, const char *name, int flags, int existed) {
  if (fd < 0) return;
  if (fd >= MAX_FDS) {
    if (place != ELSEWHERE) refuse("a descriptor past MAX_FDS on the folder or its files");
    return;
  }
  watched[fd].kind = NONE;
  if (place == ELSEWHERE) return;
  struct stat st;
  if (fstat(fd, &st) != 0) return;
  if (place == THE_FOLDER) {
    if (!S_ISDIR(st.st_mode)) return;
    watched[fd] = (struct watch){FOLDER, 0, st.st_dev, st.st_ino};
    return;
  }
  if (!S_ISREG(st.st_mode)) return; /* a subfolder */
  uint32_t file = next_file++;
  watched[fd] = (struct watch){(flags & (O_SYNC | O_DSYNC)) ? SYNCED : PLAIN, file, st.st_dev, st.st_ino};
  record_open(file, !existed, name);
  if ((flags & O_TRUNC) && existed) record_truncate(file, 0);
}

static int mode_of(int flags, va_list ap) { return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, int) : 0; }

#define OPEN_BODY(dirfd, call)                                                               \
  char name[NAME_MAX + 1] = "";                                                              \
  enum place place = locate(dirfd, path, name);                                              \
  if (place != IN_FOLDER) {                                                                  \
    int fd = call;                                                                           \
    watch(fd, place, name, flags, 1);                                                        \
    return fd;                                                                               \
  }                                                                                          \
  pthread_mutex_lock(&lock);                                                                 \
  struct stat before;                                                                        \
  int existed = fstatat(dirfd, path, &before, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;  \
  int fd = call;                                                                             \
  watch(fd, place, name, flags, existed);                                                    \
  pthread_mutex_unlock(&lock);                                                               \
  return fd

int open(const char *path, int flags, ...) {
  REAL(open, int, const char *, int, ...);
  va_list ap;
  va_start(ap, flags);
  int mode = mode_of(flags, ap);
  va_end(ap);
  OPEN_BODY(AT_FDCWD, real_open(path, flags, mode));
}
int open64(const char *path, int flags, ...) {
  REAL(open64, int, const char *, int, ...);
  va_list ap;
  va_start(ap, flags);
  int mode = mode_of(flags, ap);
  va_end(ap);
  OPEN_BODY(AT_FDCWD, real_open64(path, flags, mode));
}
int openat(int dirfd, const char *path, int flags, ...) {
  REAL(openat, int, int, const char *, int, ...);
  va_list ap;
  va_start(ap, flags);
  int mode = mode_of(flags, ap);
  va_end(ap);
  OPEN_BODY(dirfd, real_openat(dirfd, path, flags, mode));
}
int openat64(int dirfd, const char *path, int flags, ...) {
  REAL(openat64, int, int, const char *, int, ...);
  va_list ap;
  va_start(ap, flags);
  int mode = mode_of(flags, ap);
  va_end(ap);
  OPEN_BODY(dirfd, real_openat64(dirfd, path, flags, mode));
}
int creat(const char *path, mode_t mode) { return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }
int creat64(const char *path, mode_t mode) { return open(path, O_CREAT | O_WRONLY | O_TRUNC, mode); }

int close(int fd) {
  REAL(close, int, int);
  if (fd >= 0 && fd < MAX_FDS) watched[fd].kind = NONE;
  return real_close(fd);
}

static int carry(int from, int to) {
  if (to >= 0 && to < MAX_FDS) watched[to] = (struct watch){NONE, 0, 0, 0};
  if (to >= 0 && to < MAX_FDS && kind_of(from) != NONE) watched[to] = watched[from];
  return to;
}
int dup(int fd) {
  REAL(dup, int, int);
  return carry(fd, real_dup(fd));
}
int dup2(int fd, int to) {
  REAL(dup2, int, int, int);
  return carry(fd, real_dup2(fd, to));
}
int dup3(int fd, int to, int flags) {
  REAL(dup3, int, int, int, int);
  return carry(fd, real_dup3(fd, to, flags));
}

/* ---- writes ---- */

/* Where a write of `written` bytes that ended the file landed (O_APPEND ignores the offset). */
static off_t appended_at(int fd, ssize_t written) {
  struct stat st;
  if (fstat(fd, &st) != 0) abort();
  return st.st_size - written;
}
static int appends(int fd) {
  int fl = fcntl(fd, F_GETFL);
  return fl >= 0 && (fl & O_APPEND);
}
/* After a write at the descriptor's position: it moved to the write's end, append or not. */
static off_t written_at(int fd, ssize_t written) {
  off_t end = lseek(fd, 0, SEEK_CUR);
  if (end < 0) abort();
  return end - written;
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset) {
  REAL(pwrite, ssize_t, int, const void *, size_t, off_t);
  if (!is_watched_file(fd)) return real_pwrite(fd, buf, n, offset);
  pthread_mutex_lock(&lock);
  ssize_t r = real_pwrite(fd, buf, n, offset);
  struct iovec v = {(void *)buf, n};
  if (r > 0) record_write(fd, &v, 1, appends(fd) ? appended_at(fd, r) : offset, r, 0);
  pthread_mutex_unlock(&lock);
  return r;
}
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t offset) { return pwrite(fd, buf, n, offset); }

ssize_t write(int fd, const void *buf, size_t n) {
  REAL(write, ssize_t, int, const void *, size_t);
  if (!is_watched_file(fd)) return real_write(fd, buf, n);
  pthread_mutex_lock(&lock);
  ssize_t r = real_write(fd, buf, n);
  struct iovec v = {(void *)buf, n};
  if (r > 0) record_write(fd, &v, 1, written_at(fd, r), r, 0);
  pthread_mutex_unlock(&lock);
  return r;
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t offset) {
  REAL(pwritev, ssize_t, int, const struct iovec *, int, off_t);
  if (!is_watched_file(fd)) return real_pwritev(fd, iov, n, offset);
  pthread_mutex_lock(&lock);
  ssize_t r = real_pwritev(fd, iov, n, offset);
  if (r > 0) record_write(fd, iov, n, appends(fd) ? appended_at(fd, r) : offset, r, 0);
  pthread_mutex_unlock(&lock);
  return r;
}
ssize_t pwritev64(int fd, const struct iovec *iov, int n, off_t offset) { return pwritev(fd, iov, n, offset); }

ssize_t pwritev2(int fd, const struct iovec *iov, int n, off_t offset, int flags) {
  REAL(pwritev2, ssize_t, int, const struct iovec *, int, off_t, int);
  if (!is_watched_file(fd)) return real_pwritev2(fd, iov, n, offset, flags);
  pthread_mutex_lock(&lock);
  ssize_t r = real_pwritev2(fd, iov, n, offset, flags);
  if (r > 0) {
    int durable = 0, append = appends(fd);
#ifdef RWF_DSYNC
    durable = (flags & (RWF_DSYNC | RWF_SYNC)) != 0;
#endif
#ifdef RWF_APPEND
    append = append || (flags & RWF_APPEND);
#endif
    off_t at = offset == -1 ? written_at(fd, r) : append ? appended_at(fd, r) : offset;
    record_write(fd, iov, n, at, r, durable);
  }
  pthread_mutex_unlock(&lock);
  return r;
}
ssize_t pwritev64v2(int fd, const struct iovec *iov, int n, off_t offset, int flags) { return pwritev2(fd, iov, n, offset, flags); }

ssize_t writev(int fd, const struct iovec *iov, int n) {
  REAL(writev, ssize_t, int, const struct iovec *, int);
  if (!is_watched_file(fd)) return real_writev(fd, iov, n);
  pthread_mutex_lock(&lock);
  ssize_t r = real_writev(fd, iov, n);
  if (r > 0) record_write(fd, iov, n, written_at(fd, r), r, 0);
  pthread_mutex_unlock(&lock);
  return r;
}

int ftruncate(int fd, off_t length) {
  REAL(ftruncate, int, int, off_t);
  if (!is_watched_file(fd)) return real_ftruncate(fd, length);
  pthread_mutex_lock(&lock);
  int r = real_ftruncate(fd, length);
  if (r == 0) record_truncate(watched[fd].file, (uint64_t)length);
  pthread_mutex_unlock(&lock);
  return r;
}
int ftruncate64(int fd, off_t length) { return ftruncate(fd, length); }

/* ---- calls outside the model: refused on watched files ---- */

int truncate(const char *path, off_t length) {
  REAL(truncate, int, const char *, off_t);
  char name[NAME_MAX + 1];
  if (locate(AT_FDCWD, path, name) == IN_FOLDER) refuse("truncate() by path of a watched file");
  return real_truncate(path, length);
}
int truncate64(const char *path, off_t length) { return truncate(path, length); }

int fallocate(int fd, int mode, off_t offset, off_t len) {
  REAL(fallocate, int, int, int, off_t, off_t);
  if (is_watched_file(fd)) refuse("fallocate on a watched file");
  return real_fallocate(fd, mode, offset, len);
}
int fallocate64(int fd, int mode, off_t offset, off_t len) { return fallocate(fd, mode, offset, len); }
int posix_fallocate(int fd, off_t offset, off_t len) {
  REAL(posix_fallocate, int, int, off_t, off_t);
  if (is_watched_file(fd)) refuse("posix_fallocate on a watched file");
  return real_posix_fallocate(fd, offset, len);
}
int posix_fallocate64(int fd, off_t offset, off_t len) { return posix_fallocate(fd, offset, len); }

void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset) {
  REAL(mmap, void *, void *, size_t, int, int, int, off_t);
  if ((prot & PROT_WRITE) && (flags & MAP_SHARED) && is_watched_file(fd)) refuse("a writable shared mmap of a watched file (MDB_WRITEMAP)");
  return real_mmap(addr, length, prot, flags, fd, offset);
}
void *mmap64(void *addr, size_t length, int prot, int flags, int fd, off_t offset) { return mmap(addr, length, prot, flags, fd, offset); }

ssize_t copy_file_range(int in, off_t *in_off, int out, off_t *out_off, size_t len, unsigned int flags) {
  REAL(copy_file_range, ssize_t, int, off_t *, int, off_t *, size_t, unsigned int);
  if (is_watched_file(out)) refuse("copy_file_range into a watched file");
  return real_copy_file_range(in, in_off, out, out_off, len, flags);
}
ssize_t sendfile(int out, int in, off_t *offset, size_t count) {
  REAL(sendfile, ssize_t, int, int, off_t *, size_t);
  if (is_watched_file(out)) refuse("sendfile into a watched file");
  return real_sendfile(out, in, offset, count);
}
ssize_t sendfile64(int out, int in, off_t *offset, size_t count) { return sendfile(out, in, offset, count); }

/* ---- flushes ---- */

static uint64_t flush_begin(void) {
  pthread_mutex_lock(&lock);
  uint64_t s = seq;
  pthread_mutex_unlock(&lock);
  return s;
}

/* 'F' for one file, or 'D'/'A' (file = UINT32_MAX: no file field). */
static void flush_end(char kind, uint64_t covers, uint32_t file, int rc) {
  if (rc != 0 || no_flush) return;
  pthread_mutex_lock(&lock);
  unsigned char rec[13], *at = rec;
  put(&at, &kind, 1);
  put(&at, &covers, 8);
  if (kind == 'F') put(&at, &file, 4);
  seq++;
  raw_write(journal_fd, rec, (size_t)(at - rec));
  pthread_mutex_unlock(&lock);
}

static int flush_fd(int fd, int (*real)(int)) {
  enum kind k = kind_of(fd);
  if (k == NONE) return real(fd);
  if (no_flush) return 0;
  uint32_t file = watched[fd].file;
  uint64_t s = flush_begin();
  int r = real(fd);
  flush_end(k == FOLDER ? 'D' : 'F', s, file, r);
  return r;
}

int fsync(int fd) {
  REAL(fsync, int, int);
  return flush_fd(fd, real_fsync);
}

int fdatasync(int fd) {
  REAL(fdatasync, int, int);
  return flush_fd(fd, real_fdatasync);
}

int sync_file_range(int fd, off64_t offset, off64_t nbytes, unsigned int flags) {
  REAL(sync_file_range, int, int, off64_t, off64_t, unsigned int);
  if (!is_watched_file(fd)) return real_sync_file_range(fd, offset, nbytes, flags);
  if (no_flush) return 0;
  /* Even with WAIT_AFTER it flushes no metadata, and it covers one range only: never a flush. */
  return real_sync_file_range(fd, offset, nbytes, flags);
}

int msync(void *addr, size_t length, int flags) {
  REAL(msync, int, void *, size_t, int);
  if (!(flags & MS_SYNC) || journal_fd < 0) return real_msync(addr, length, flags);
  int any = 0;
  for (int fd = 0; fd < MAX_FDS && !any; fd++) any = watched[fd].kind == PLAIN || watched[fd].kind == SYNCED;
  if (!any) return real_msync(addr, length, flags);
  if (no_flush) return 0;
  uint64_t s = flush_begin();
  int r = real_msync(addr, length, flags);
  for (int fd = 0; fd < MAX_FDS; fd++)
    if (is_watched_file(fd)) flush_end('F', s, watched[fd].file, r);
  return r;
}

int syncfs(int fd) {
  REAL(syncfs, int, int);
  struct stat st;
  if (journal_fd < 0 || fstat(fd, &st) != 0 || st.st_dev != folder_dev) return real_syncfs(fd);
  if (no_flush) return 0;
  uint64_t s = flush_begin();
  int r = real_syncfs(fd);
  flush_end('A', s, UINT32_MAX, r);
  return r;
}

void sync(void) {
  REAL(sync, void, void);
  if (journal_fd < 0) {
    real_sync();
    return;
  }
  if (no_flush) return;
  uint64_t s = flush_begin();
  real_sync();
  flush_end('A', s, UINT32_MAX, 0);
}

/* ---- name changes ---- */

static int unlink_in(int dirfd, const char *path, int flags, int (*call)(int, const char *, int)) {
  char name[NAME_MAX + 1];
  if ((flags & AT_REMOVEDIR) || locate(dirfd, path, name) != IN_FOLDER || !is_regular_name(dirfd, path)) return call(dirfd, path, flags);
  pthread_mutex_lock(&lock);
  int r = call(dirfd, path, flags);
  if (r == 0) record_names('U', name, NULL);
  pthread_mutex_unlock(&lock);
  return r;
}
static int real_unlinkat_call(int dirfd, const char *path, int flags) {
  REAL(unlinkat, int, int, const char *, int);
  return real_unlinkat(dirfd, path, flags);
}
static int real_unlink_call(int dirfd, const char *path, int flags) {
  (void)dirfd;
  (void)flags;
  REAL(unlink, int, const char *);
  return real_unlink(path);
}
static int real_remove_call(int dirfd, const char *path, int flags) {
  (void)dirfd;
  (void)flags;
  REAL(remove, int, const char *);
  return real_remove(path);
}
int unlink(const char *path) { return unlink_in(AT_FDCWD, path, 0, real_unlink_call); }
int unlinkat(int dirfd, const char *path, int flags) { return unlink_in(dirfd, path, flags, real_unlinkat_call); }
int remove(const char *path) { return unlink_in(AT_FDCWD, path, 0, real_remove_call); }

static int rename_in(int olddir, const char *from, int newdir, const char *to, unsigned int flags) {
  REAL(renameat2, int, int, const char *, int, const char *, unsigned int);
  REAL(renameat, int, int, const char *, int, const char *);
  char a[NAME_MAX + 1], b[NAME_MAX + 1];
  int from_in = locate(olddir, from, a) == IN_FOLDER && is_regular_name(olddir, from);
  int to_in = locate(newdir, to, b) == IN_FOLDER;
  if (!from_in && to_in && is_regular_name(olddir, from)) refuse("a rename into the folder from outside it");
  if (!from_in) return flags ? real_renameat2(olddir, from, newdir, to, flags) : real_renameat(olddir, from, newdir, to);
#ifdef RENAME_EXCHANGE
  if (flags & RENAME_EXCHANGE) refuse("rename with RENAME_EXCHANGE of a watched file");
#endif
  pthread_mutex_lock(&lock);
  int r = flags ? real_renameat2(olddir, from, newdir, to, flags) : real_renameat(olddir, from, newdir, to);
  if (r == 0 && strcmp(a, b) != 0) record_names(to_in ? 'R' : 'U', a, to_in ? b : NULL);
  pthread_mutex_unlock(&lock);
  return r;
}
int rename(const char *from, const char *to) { return rename_in(AT_FDCWD, from, AT_FDCWD, to, 0); }
int renameat(int olddir, const char *from, int newdir, const char *to) { return rename_in(olddir, from, newdir, to, 0); }
int renameat2(int olddir, const char *from, int newdir, const char *to, unsigned int flags) { return rename_in(olddir, from, newdir, to, flags); }

static int link_in(int olddir, const char *from, int newdir, const char *to, int flags) {
  REAL(linkat, int, int, const char *, int, const char *, int);
  char a[NAME_MAX + 1], b[NAME_MAX + 1];
  if (locate(newdir, to, b) != IN_FOLDER) return real_linkat(olddir, from, newdir, to, flags);
  if (locate(olddir, from, a) != IN_FOLDER || !is_regular_name(olddir, from)) refuse("a hard link into the folder from outside it");
  pthread_mutex_lock(&lock);
  int r = real_linkat(olddir, from, newdir, to, flags);
  if (r == 0) record_names('L', a, b);
  pthread_mutex_unlock(&lock);
  return r;
}
int link(const char *from, const char *to) { return link_in(AT_FDCWD, from, AT_FDCWD, to, 0); }
int linkat(int olddir, const char *from, int newdir, const char *to, int flags) { return link_in(olddir, from, newdir, to, flags); }
