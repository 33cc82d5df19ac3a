/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Making a registration: load the kind's embedded object, size it for the
 * host, register its struct_ops and pin everything under the pin root.
 */
#ifndef QDISCCTL_CORE_REGISTER_H
#define QDISCCTL_CORE_REGISTER_H

#include <stdint.h>

#include "core/registry.h"

/*
 * Free slots `default KIND` makes sure of: the kernel takes the children
 * of every mq it makes later, on devices that come up, from them.
 */
#define QD_DEFAULT_SLOTS 1024

/*
 * Register k beside its other registrations (loading the embedded
 * program), sized for the host: an instance slot for every tx queue of
 * the devices sysfs shows, or of the here tx queues of the network
 * namespace the caller works in if that is more, and at least need,
 * rounded up to QD_SLOTS_MIN; the kind's capacities from --capacity or
 * their defaults, raised to what the options in cfg need (cfg may be
 * NULL). Prints its errors.
 */
int qd_reg_create(const struct qd_kind *k, struct qd_reg *r, uint32_t need, uint64_t here,
		  const void *cfg);

#endif
