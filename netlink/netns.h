/* SPDX-License-Identifier: GPL-2.0 */
#ifndef QDISCCTL_NETNS_H
#define QDISCCTL_NETNS_H

/*
 * Move the process into the named network namespace (as `ip netns` names
 * them). Only the network namespace changes: unlike `ip -n`, /sys is not
 * remounted, because that would hide bpffs, where registrations are pinned
 * for the whole host. Returns 0 or -errno.
 */
int netns_enter(const char *name);

#endif
