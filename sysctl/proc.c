// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>

#include "sysctl/proc.h"

/* /proc/sys, for qd_sysctl_env_init, qd_sysctl_get and qd_sysctl_put. */
static const struct qd_sysctl_env proc_env = { .proc_root = "/proc/sys" };

#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71
#endif

void qd_sysctl_path(const struct qd_sysctl_env *env, const char *name, char *buf, size_t len)
{
	size_t n = snprintf(buf, len, "%s/", env->proc_root);

	for (const char *p = name; *p && n + 1 < len; p++)
		buf[n++] = *p == '.' ? '/' : *p;
	if (n < len)
		buf[n] = '\0';
}

static bool proc_exists(const struct qd_sysctl_env *env, const char *name)
{
	char path[PATH_MAX];

	qd_sysctl_path(env, name, path, sizeof(path));
	return access(path, F_OK) == 0;
}

/* Reads a whole small file; -errno. */
static int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	return 0;
}

int qd_sysctl_env_init(struct qd_sysctl_env *env)
{
	char path[PATH_MAX];
	struct utsname u;
	struct sysinfo si;
	socklen_t slen;
	unsigned long long cookie;
	char *config;
	struct stat st;
	int fd;

	memset(env, 0, sizeof(*env));
	env->proc_root = proc_env.proc_root;
	env->state_dir = "/run/qdiscctl";

	/*
	 * The namespace cookie, not the inode of /proc/self/ns/net: inodes
	 * are reused once a namespace is gone, cookies never are during a
	 * boot (and /run does not outlive one), so a save file cannot be
	 * restored into a later namespace by mistake.
	 */
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	slen = sizeof(cookie);
	if (fd >= 0 && !getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &slen))
		snprintf(env->netns_id, sizeof(env->netns_id), "%llu", cookie);
	else if (!stat("/proc/self/ns/net", &st)) /* before 5.14 */
		snprintf(env->netns_id, sizeof(env->netns_id), "ino%llu",
			 (unsigned long long)st.st_ino);
	else
		snprintf(env->netns_id, sizeof(env->netns_id), "unknown");
	if (fd >= 0)
		close(fd);

	/*
	 * netdev_max_backlog has been an initial-namespace-only sysctl since
	 * namespaces exist, and exists wherever net.core does.
	 */
	env->init_netns = proc_exists(env, "net.core.netdev_max_backlog");

	if (!uname(&u)) {
		qd_kernel_parse_release(u.release, &env->kernel);
		env->kernel.x86_64 = !strcmp(u.machine, "x86_64");
		snprintf(path, sizeof(path), "/boot/config-%s", u.release);
		config = malloc(1 << 20);
		if (config && !read_text(path, config, 1 << 20))
			qd_kernel_parse_config(config, &env->kernel);
		free(config);
	}
	if (!sysinfo(&si))
		env->kernel.mem_bytes = (unsigned long long)si.totalram * si.mem_unit;
	return 0;
}

/* The sysctl at path as canonical text: the kernel separates a vector's integers with tabs. */
static int read_canon(const char *path, char *buf, size_t len)
{
	char raw[256];
	size_t n = 0;
	int err = read_text(path, raw, sizeof(raw));

	if (err)
		return err;
	for (const char *p = raw; *p && n + 1 < len; p++) {
		if (isspace((unsigned char)*p)) {
			if (n && buf[n - 1] != ' ')
				buf[n++] = ' ';
		} else {
			buf[n++] = *p;
		}
	}
	if (n && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
	return 0;
}

int qd_sysctl_read(const struct qd_sysctl_env *env, const struct qd_sysctl *s, char *buf,
		   size_t len, bool *writable)
{
	char path[PATH_MAX];
	struct stat st;
	int err;

	qd_sysctl_path(env, s->name, path, sizeof(path));
	err = read_canon(path, buf, len);
	if (err)
		return err;
	if (writable)
		*writable = !stat(path, &st) && (st.st_mode & S_IWUSR);
	return 0;
}

static int write_text(const char *path, const char *text)
{
	char line[QD_SYSCTL_TEXT + 1];
	ssize_t n;
	int fd, err = 0;

	/* No O_CREAT: a sysctl that is not there is not made up. O_TRUNC for tests' files. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = snprintf(line, sizeof(line), "%s\n", text);
	/* /proc/sys parses one write(); a short one would leave half a vector. */
	if (write(fd, line, n) != n)
		err = errno ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

static int write_file(const struct qd_sysctl_env *env, const struct qd_sysctl *s, const char *text)
{
	char path[PATH_MAX];

	qd_sysctl_path(env, s->name, path, sizeof(path));
	return write_text(path, text);
}

int qd_sysctl_write(const struct qd_sysctl_env *env, const struct qd_sysctl *s, const char *text)
{
	errno = 0;
	return env->write ? env->write(env, s, text) : write_file(env, s, text);
}

int qd_sysctl_get(const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];

	qd_sysctl_path(&proc_env, name, path, sizeof(path));
	return read_canon(path, buf, len);
}

int qd_sysctl_put(const char *name, const char *text)
{
	char path[PATH_MAX];

	qd_sysctl_path(&proc_env, name, path, sizeof(path));
	return write_text(path, text);
}

const char *qd_sysctl_absent_why(const struct qd_sysctl_env *env, const struct qd_sysctl *s)
{
	if ((s->flags & QD_SYSCTL_F_HOST) && !env->init_netns)
		return "not in this network namespace";
	return "not available on this kernel";
}
