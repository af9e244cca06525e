# SPDX-License-Identifier: MIT
# cmake -DSRC=page.md -DOPTIONS=options.md -DEXIT=exit.md -DDOCDIR=dir
#       -DOUT=page.full.md -P assemble.cmake
# Puts the generated OPTIONS and EXIT STATUS texts where the page says
# %OPTIONS% and %EXIT_STATUS%, and the installed documents' directory where
# it says %DOCDIR%.
cmake_minimum_required(VERSION 3.20...3.25)
file(READ ${SRC} page)
file(READ ${OPTIONS} options)
file(READ ${EXIT} exit_status)
string(REPLACE "%OPTIONS%" "${options}" page "${page}")
string(REPLACE "%EXIT_STATUS%" "${exit_status}" page "${page}")
string(REPLACE "%DOCDIR%" "${DOCDIR}" page "${page}")
file(WRITE ${OUT} "${page}")
