# SPDX-License-Identifier: MIT
# cmake -DSRC=page.md -DOPTIONS=options.md -DOUT=page.full.md -P assemble.cmake
# Puts the generated OPTIONS text where the page says %OPTIONS%.
cmake_minimum_required(VERSION 3.25)
file(READ ${SRC} page)
file(READ ${OPTIONS} options)
string(REPLACE "%OPTIONS%" "${options}" page "${page}")
file(WRITE ${OUT} "${page}")
