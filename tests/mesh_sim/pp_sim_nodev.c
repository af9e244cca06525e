// SPDX-License-Identifier: MIT
/*
 * pp_sim_nodev.c - an LD_PRELOAD library for the mesh simulation: a
 * process that asks libibverbs for its devices waits there until it is
 * killed.  Given to rank 0, it keeps rank 0's own worker from joining: the
 * worker's fact-reading child (the only one of rank 0's processes that
 * looks for a device before the pairs) waits, the worker gives up on its
 * facts after -T + 2 s and exits, and the stand-in plays rank 0 instead
 * (tests/mesh_sim/sim_test.py, the threshold cases).  So rank 0's pairs
 * are modeled like the others' and the mesh can end 0 or 4 with no RDMA
 * device on the machine.  The coordinator never opens a device.
 */
#include <unistd.h>

struct ibv_device;

struct ibv_device **ibv_get_device_list(int *num_devices);

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	(void)num_devices;
	for (;;)
		pause(); /* the worker kills it at its facts' deadline */
}
