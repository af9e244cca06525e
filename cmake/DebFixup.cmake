# SPDX-License-Identifier: MIT
# CPack pre-build script (CPACK_PRE_BUILD_SCRIPTS in Packaging.cmake): for
# the .deb only, what Debian policy asks of the staged files that
# `cmake --install` does not do: man pages compressed with gzip -9n, and the
# license as /usr/share/doc/PACKAGE/copyright in the machine-readable format.
if(NOT CPACK_GENERATOR STREQUAL "DEB")
  return()
endif()
set(root "${CPACK_TEMPORARY_DIRECTORY}${CPACK_PACKAGING_INSTALL_PREFIX}")

file(GLOB pages "${root}/share/man/man[1-9]/*.[1-9]")
foreach(page ${pages})
  execute_process(COMMAND gzip -9nf "${page}" RESULT_VARIABLE ret)
  if(NOT ret EQUAL 0)
    message(FATAL_ERROR "gzip ${page} failed")
  endif()
endforeach()

file(READ "${CPACK_RESOURCE_FILE_LICENSE}" license)
string(REGEX REPLACE "\n$" "" license "${license}")
string(REGEX REPLACE "\n\n" "\n.\n" license "${license}")
string(REGEX REPLACE "\n" "\n " license "${license}")
file(WRITE "${root}/share/doc/${CPACK_PACKAGE_NAME}/copyright"
"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: ${CPACK_PACKAGE_NAME}

Files: *
Copyright: 2026 the pingpong authors
License: MIT
 ${license}
")
