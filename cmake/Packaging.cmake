# SPDX-License-Identifier: MIT
# Binary packages with CPack, from what `cmake --install` installs (the four
# tools, their man pages, the bash completions, README, LICENSE and docs/):
#
#   cd build && cpack -G DEB     # pingpong_0.1.0_amd64.deb
#   cd build && cpack -G RPM     # pingpong-0.1.0-1.x86_64.rpm (needs rpmbuild)
#
# Both install under /usr.  The runtime dependency on libibverbs is declared:
# on Debian by dpkg-shlibdeps from the binaries (libibverbs1 and libc6, with
# the versions the symbols need), on RPM by rpmbuild's automatic
# requirements (libibverbs.so.1(...)) plus the package name libibverbs of
# Fedora and RHEL.  No file collides with rdma-core's: its tools are ibv_*,
# ours *_pingpong (tests/package/package.sh checks against the host's
# packages).
set(CPACK_PACKAGE_NAME pingpong)
set(CPACK_PACKAGE_VENDOR "The pingpong authors")
# Debian's Maintainer: whoever builds the packages for a distribution sets
# it ("Name <address>"); the project has no address of its own.
set(PP_PACKAGE_MAINTAINER "The pingpong authors" CACHE STRING
  "Maintainer field of the .deb")
set(CPACK_PACKAGE_CONTACT "${PP_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "raw-verbs RDMA ping-pong tools: rc, ud, srq and xrc_pingpong")
set(CPACK_PACKAGE_DESCRIPTION
  "Four small tools, one per transport (RC/UC, UD, SRQ, XRC), that bring RDMA
queue pairs up by hand with libibverbs and bounce messages between two hosts:
to check that a NIC, a GID index and an MTU work, to measure per-transport
latency, and to learn queue pair bring-up. They keep the option letters of
rdma-core's ibv_*_pingpong examples and add a negotiated handshake, data
validation, latency statistics and a JSON report.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE) # and DebFixup
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# gzip'd man pages and a copyright file, in the .deb only (DebFixup.cmake)
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/DebFixup.cmake)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
find_program(PP_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(PP_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libibverbs1, libc6")
endif()

set(CPACK_RPM_FILE_NAME RPM-DEFAULT)
set(CPACK_RPM_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_RPM_PACKAGE_LICENSE MIT)
set(CPACK_RPM_PACKAGE_GROUP "Applications/System")
set(CPACK_RPM_PACKAGE_REQUIRES libibverbs)
set(CPACK_RPM_PACKAGE_AUTOREQ ON)
# directories of the file system, owned by the filesystem package
set(CPACK_RPM_EXCLUDE_FROM_AUTO_FILELIST_ADDITION
  /usr/share/bash-completion /usr/share/bash-completion/completions
  /usr/share/doc /usr/share/man /usr/share/man/man1 /usr/share/man/man7)

include(CPack)
