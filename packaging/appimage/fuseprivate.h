/* The private squashfuse header the AppImage runtime includes, for the Debian squashfuse 0.1.105
 * static libraries (libsquashfuse-dev). Declarations copied from squashfuse 0.1.105's
 * fuseprivate.h, Copyright (c) 2014 Dave Vasilevsky, BSD-2-Clause (see LICENSE.squashfuse).
 * squashfuse 0.5 added a third argument to sqfs_usage; the macro below maps the runtime's
 * three-argument calls onto the two-argument function of 0.1.105. */
#ifndef SQFS_FUSEPRIVATE_H
#define SQFS_FUSEPRIVATE_H

#include <stdbool.h>
#include "squashfuse.h"
#include <fuse3/fuse.h>
#include <fuse3/fuse_lowlevel.h>

int sqfs_listxattr(sqfs *fs, sqfs_inode *inode, char *buf, size_t *size);
void sqfs_usage(char *progname, bool fuse_usage);
#define sqfs_usage(progname, fuse_usage, ll_usage) (sqfs_usage)((progname), (fuse_usage))

typedef struct {
	char *progname;
	const char *image;
	int mountpoint;
	size_t offset;
	unsigned int idle_timeout_secs;
} sqfs_opts;
int sqfs_opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs);
int sqfs_statfs(sqfs *sq, struct statvfs *st);

#endif
