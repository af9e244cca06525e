# SPDX-License-Identifier: MIT
#
# One Soft-RoCE guest for all e2e tests of a ctest run (docs/dev/testing.md).
#
# e2e.guest.start (fixture setup) boots it in the background and waits until
# rxe0 is up; every e2e test requires the fixture and, through PP_GUEST_DIR,
# runs its script in that guest as a job; e2e.guest.stop (fixture cleanup)
# powers it off. CTest runs them only when a selected test needs the guest:
# "ctest -R e2e.rc.poll.4096" boots, runs one test and stops. With a real
# RDMA device on the host, start and stop do nothing and the scripts run on
# the host. The start test is not RUN_SERIAL: the boot may overlap unit tests.
# The guest's state is in PP_E2E_GUEST_DIR (tests/CMakeLists.txt).

add_test(NAME e2e.guest.start
	COMMAND ${PROJECT_SOURCE_DIR}/tests/softroce/guest.sh
	--timeout 300 --start ${PP_E2E_GUEST_DIR})
add_test(NAME e2e.guest.stop
	COMMAND ${PROJECT_SOURCE_DIR}/tests/softroce/guest.sh
	--stop ${PP_E2E_GUEST_DIR})
set_tests_properties(e2e.guest.start PROPERTIES
	FIXTURES_SETUP softroce_guest
	LABELS e2e
	TIMEOUT 400)
set_tests_properties(e2e.guest.stop PROPERTIES
	FIXTURES_CLEANUP softroce_guest
	LABELS e2e
	TIMEOUT 120)

# Two hosts (docs/dev/testing.md): one shared pair of guests, A and B, for all
# e2e.twohost.* tests, booted by e2e.pair.start and powered off by
# e2e.pair.stop. The pair boots after the single guest is gone (DEPENDS,
# when both are selected): three guests at once would fight for 2 cores.
set(PP_E2E_PAIR_DIR ${CMAKE_BINARY_DIR}/softroce-pair)

add_test(NAME e2e.pair.start
	COMMAND ${PROJECT_SOURCE_DIR}/tests/softroce/guest.sh
	--pair --timeout 300 --start ${PP_E2E_PAIR_DIR})
add_test(NAME e2e.pair.stop
	COMMAND ${PROJECT_SOURCE_DIR}/tests/softroce/guest.sh
	--pair --stop ${PP_E2E_PAIR_DIR})
set_tests_properties(e2e.pair.start PROPERTIES
	FIXTURES_SETUP softroce_pair
	DEPENDS e2e.guest.stop
	LABELS e2e
	TIMEOUT 400)
set_tests_properties(e2e.pair.stop PROPERTIES
	FIXTURES_CLEANUP softroce_pair
	LABELS e2e
	TIMEOUT 120)

# N hosts and a real Slurm (docs/dev/testing.md): one shared bed of four guests,
# node01-node04 (hosts A-D) on one emulated segment, slurmctld on A, slurmd
# and munged on each, for all e2e.mesh.* tests, booted by e2e.mesh.start and
# powered off by e2e.mesh.stop. The bed boots after the single guest and the
# pair are gone (DEPENDS, when they are selected).
set(PP_E2E_MESH_DIR ${CMAKE_BINARY_DIR}/softroce-mesh)

add_test(NAME e2e.mesh.start
	COMMAND ${PROJECT_SOURCE_DIR}/tests/softroce/guest.sh
	--hosts 4 --timeout 300 --start ${PP_E2E_MESH_DIR})
add_test(NAME e2e.mesh.stop
	COMMAND ${PROJECT_SOURCE_DIR}/tests/softroce/guest.sh
	--hosts 4 --stop ${PP_E2E_MESH_DIR})
set_tests_properties(e2e.mesh.start PROPERTIES
	FIXTURES_SETUP softroce_mesh
	DEPENDS "e2e.guest.stop;e2e.pair.stop"
	LABELS e2e
	TIMEOUT 400)
set_tests_properties(e2e.mesh.stop PROPERTIES
	FIXTURES_CLEANUP softroce_mesh
	LABELS e2e
	TIMEOUT 120)
