/*
 * Starts a program in a new PTY with posix_spawn, for node-pty's `fork`
 * (see src/host/pty-spawn.ts).
 *
 * Why: node-pty 1.1 starts a child with forkpty(3) on Linux. fork copies the
 * page tables of the whole host process on the main thread, so each start
 * costs more the more the host holds (about 5 ms at 56 MiB, 14 ms at
 * 450 MiB), and every other terminal's snapshot and input waits behind it.
 * glibc's posix_spawn runs the child in the parent's memory until it execs
 * (clone with CLONE_VM | CLONE_VFORK): nothing is copied, whatever the size.
 *
 * The child is set up as forkpty sets it up: a new session (POSIX_SPAWN_SETSID),
 * then the PTY's slave opened as stdin without O_NOCTTY, which makes it the
 * session's controlling terminal, and dup'd to stdout and stderr; every signal
 * at its default action and none blocked. The termios and the window size are
 * node-pty's, set on the slave before the child starts. Its exit is reported
 * as node-pty reports it: a thread waits for the child and calls back with
 * (exit code, signal number).
 *
 * Linux (glibc 2.29 or later, for posix_spawn_file_actions_addchdir_np) only;
 * a host where this does not build keeps node-pty's own forkpty.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#define CHECK(env, call)                                                        \
  do {                                                                          \
    if ((call) != napi_ok) {                                                    \
      napi_throw_error((env), "PTY_SPAWN_ARGUMENTS", "pty-spawn: " #call " failed"); \
      return NULL;                                                              \
    }                                                                           \
  } while (0)

/** A JS string as a malloc'd C string, or NULL (an exception is then pending). */
static char *string_of(napi_env env, napi_value value) {
  size_t length;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) {
    napi_throw_type_error(env, "PTY_SPAWN_ARGUMENTS", "pty-spawn: expected a string");
    return NULL;
  }
  char *text = malloc(length + 1);
  napi_get_value_string_utf8(env, value, text, length + 1, &length);
  return text;
}

static void free_strings(char **strings) {
  if (strings == NULL) return;
  for (char **s = strings; *s != NULL; s++) free(*s);
  free(strings);
}

/** A JS array of strings as a NULL-terminated malloc'd array, `prefix` (if any) first. */
static char **strings_of(napi_env env, napi_value array, const char *prefix) {
  uint32_t count;
  if (napi_get_array_length(env, array, &count) != napi_ok) {
    napi_throw_type_error(env, "PTY_SPAWN_ARGUMENTS", "pty-spawn: expected an array of strings");
    return NULL;
  }
  uint32_t first = prefix != NULL ? 1 : 0;
  char **strings = calloc(count + first + 1, sizeof(char *));
  if (prefix != NULL) strings[0] = strdup(prefix);
  for (uint32_t i = 0; i < count; i++) {
    napi_value item;
    napi_get_element(env, array, i, &item);
    strings[i + first] = string_of(env, item);
    if (strings[i + first] == NULL) {
      free_strings(strings);
      return NULL;
    }
  }
  return strings;
}

/** node-pty 1.1's termios for a new PTY (src/unix/pty.cc, PtyFork). */
static void default_termios(struct termios *t, int utf8) {
  memset(t, 0, sizeof(*t));
  t->c_iflag = ICRNL | IXON | IXANY | IMAXBEL | BRKINT;
  if (utf8) t->c_iflag |= IUTF8;
  t->c_oflag = OPOST | ONLCR;
  t->c_cflag = CREAD | CS8 | HUPCL;
  t->c_lflag = ICANON | ISIG | IEXTEN | ECHO | ECHOE | ECHOK | ECHOKE | ECHOCTL;
  t->c_cc[VEOF] = 4;
  t->c_cc[VEOL] = -1;
  t->c_cc[VEOL2] = -1;
  t->c_cc[VERASE] = 0x7f;
  t->c_cc[VWERASE] = 23;
  t->c_cc[VKILL] = 21;
  t->c_cc[VREPRINT] = 18;
  t->c_cc[VINTR] = 3;
  t->c_cc[VQUIT] = 0x1c;
  t->c_cc[VSUSP] = 26;
  t->c_cc[VSTART] = 17;
  t->c_cc[VSTOP] = 19;
  t->c_cc[VLNEXT] = 22;
  t->c_cc[VDISCARD] = 15;
  t->c_cc[VMIN] = 1;
  t->c_cc[VTIME] = 0;
  cfsetispeed(t, B38400);
  cfsetospeed(t, B38400);
}

/**
 * sigfillset leaves out the real-time signals glibc keeps for itself (32 up
 * to SIGRTMIN), and posix_spawn ignores those in the child unless they are in
 * its default set; forkpty's child (node-pty resets every signal) leaves them
 * at their default. Added to the set by hand so the child starts the same.
 */
static void add_libc_internal_signals(sigset_t *set) {
  unsigned long *words = (unsigned long *)set;
  const int bits = 8 * sizeof(unsigned long);
  for (int sig = 32; sig < SIGRTMIN; sig++) words[(sig - 1) / bits] |= 1UL << ((sig - 1) % bits);
}

struct exit_watch {
  pid_t pid;
  napi_threadsafe_function on_exit;
  int exit_code;
  int signal_code;
};

static void call_on_exit(napi_env env, napi_value on_exit, void *context, void *data) {
  struct exit_watch *watch = data;
  if (env != NULL) {
    napi_value args[2], undefined;
    napi_create_int32(env, watch->exit_code, &args[0]);
    napi_create_int32(env, watch->signal_code, &args[1]);
    napi_get_undefined(env, &undefined);
    napi_call_function(env, undefined, on_exit, 2, args, NULL);
  }
  free(watch);
}

static void *wait_for_exit(void *arg) {
  struct exit_watch *watch = arg;
  napi_threadsafe_function on_exit = watch->on_exit;
  int status = 0;
  pid_t reaped;
  do reaped = waitpid(watch->pid, &status, 0);
  while (reaped == -1 && errno == EINTR);
  if (reaped == watch->pid) {
    if (WIFEXITED(status)) watch->exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) watch->signal_code = WTERMSIG(status);
  }
  // call_on_exit frees `watch`, perhaps before this returns: only the copy of on_exit is read after.
  if (napi_call_threadsafe_function(on_exit, watch, napi_tsfn_blocking) != napi_ok) free(watch);
  napi_release_threadsafe_function(on_exit, napi_tsfn_release);
  return NULL;
}

static napi_value throw_errno(napi_env env, const char *what, int error) {
  char message[256];
  snprintf(message, sizeof message, "pty-spawn: %s: %s", what, strerror(error));
  const char *name = strerrorname_np(error);
  napi_throw_error(env, name != NULL ? name : "PTY_SPAWN_FAILED", message);
  return NULL;
}

/**
 * spawn(path, argv0, args, env, cwd, cols, rows, utf8, onExit) -> { fd, pid, pty }.
 * `path` is the program's resolved path (no PATH search here); `fd` is the
 * PTY's master, non-blocking and close-on-exec.
 */
static napi_value spawn(napi_env env, napi_callback_info info) {
  size_t argc = 9;
  napi_value argv[9];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 9) {
    napi_throw_type_error(env, "PTY_SPAWN_ARGUMENTS", "pty-spawn: spawn takes 9 arguments");
    return NULL;
  }
  int32_t cols, rows;
  bool utf8;
  CHECK(env, napi_get_value_int32(env, argv[5], &cols));
  CHECK(env, napi_get_value_int32(env, argv[6], &rows));
  CHECK(env, napi_get_value_bool(env, argv[7], &utf8));

  napi_value result = NULL;
  char *path = NULL, *argv0 = NULL, *cwd = NULL, **args = NULL, **environment = NULL;
  int master = -1, slave = -1;
  bool actions_made = false, attrs_made = false;
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attrs;

  struct exit_watch *watch = calloc(1, sizeof *watch);
  napi_value name;
  napi_create_string_utf8(env, "termwire-pty-exit", NAPI_AUTO_LENGTH, &name);
  if (napi_create_threadsafe_function(env, argv[8], NULL, name, 0, 1, NULL, NULL, NULL, call_on_exit, &watch->on_exit) != napi_ok) {
    free(watch);
    napi_throw_type_error(env, "PTY_SPAWN_ARGUMENTS", "pty-spawn: onExit must be a function");
    return NULL;
  }

  if ((path = string_of(env, argv[0])) == NULL || (argv0 = string_of(env, argv[1])) == NULL ||
      (args = strings_of(env, argv[2], argv0)) == NULL || (environment = strings_of(env, argv[3], NULL)) == NULL ||
      (cwd = string_of(env, argv[4])) == NULL)
    goto done;

  master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (master == -1) { throw_errno(env, "posix_openpt", errno); goto done; }
  if (grantpt(master) == -1 || unlockpt(master) == -1) { throw_errno(env, "grantpt", errno); goto done; }
  char slave_name[128];
  int error = ptsname_r(master, slave_name, sizeof slave_name);
  if (error != 0) { throw_errno(env, "ptsname_r", error); goto done; }
  slave = open(slave_name, O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave == -1) { throw_errno(env, "open slave", errno); goto done; }
  struct termios term;
  default_termios(&term, utf8);
  struct winsize size = { .ws_row = (unsigned short)rows, .ws_col = (unsigned short)cols };
  if (tcsetattr(slave, TCSANOW, &term) == -1) { throw_errno(env, "tcsetattr", errno); goto done; }
  if (ioctl(slave, TIOCSWINSZ, &size) == -1) { throw_errno(env, "TIOCSWINSZ", errno); goto done; }

  posix_spawn_file_actions_init(&actions);
  actions_made = true;
  if (cwd[0] != '\0') posix_spawn_file_actions_addchdir_np(&actions, cwd);
  // After setsid, the first terminal a session leader opens without O_NOCTTY becomes its controlling terminal.
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, slave_name, O_RDWR, 0);
  posix_spawn_file_actions_adddup2(&actions, STDIN_FILENO, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, STDIN_FILENO, STDERR_FILENO);

  posix_spawnattr_init(&attrs);
  attrs_made = true;
  sigset_t signals;
  sigfillset(&signals);
  add_libc_internal_signals(&signals);
  posix_spawnattr_setsigdefault(&attrs, &signals);
  sigemptyset(&signals);
  posix_spawnattr_setsigmask(&attrs, &signals);
  posix_spawnattr_setflags(&attrs, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  pid_t pid;
  do error = posix_spawn(&pid, path, &actions, &attrs, args, environment);
  while (error == EINTR);
  if (error != 0) { throw_errno(env, path, error); goto done; }

  int flags = fcntl(master, F_GETFL);
  if (flags == -1 || fcntl(master, F_SETFL, flags | O_NONBLOCK) == -1) {
    int failed = errno;
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    throw_errno(env, "O_NONBLOCK on the master", failed);
    goto done;
  }

  watch->pid = pid;
  pthread_t thread;
  pthread_attr_t thread_attrs;
  pthread_attr_init(&thread_attrs);
  pthread_attr_setdetachstate(&thread_attrs, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&thread_attrs, 64 * 1024);
  error = pthread_create(&thread, &thread_attrs, wait_for_exit, watch);
  pthread_attr_destroy(&thread_attrs);
  if (error != 0) {
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    throw_errno(env, "pthread_create", error);
    goto done;
  }

  napi_value value;
  napi_create_object(env, &result);
  napi_create_int32(env, master, &value);
  napi_set_named_property(env, result, "fd", value);
  napi_create_int32(env, pid, &value);
  napi_set_named_property(env, result, "pid", value);
  napi_create_string_utf8(env, slave_name, NAPI_AUTO_LENGTH, &value);
  napi_set_named_property(env, result, "pty", value);
  master = -1; // now the caller's
  watch = NULL; // now its thread's

done:
  if (watch != NULL) {
    napi_release_threadsafe_function(watch->on_exit, napi_tsfn_abort);
    free(watch);
  }
  if (attrs_made) posix_spawnattr_destroy(&attrs);
  if (actions_made) posix_spawn_file_actions_destroy(&actions);
  if (slave != -1) close(slave);
  if (master != -1) close(master);
  free(path);
  free(argv0);
  free(cwd);
  free_strings(args);
  free_strings(environment);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  if (napi_create_function(env, "spawn", NAPI_AUTO_LENGTH, spawn, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "spawn", fn) != napi_ok) return NULL;
  return exports;
}
