#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""hostile_peer.py MODE HOST PORT [N]: play a bad client against a server.

MODE is one of
  garbage     64 random bytes (fixed seed): not our protocol at all
  truncated   a HELLO header announcing 64 bytes, 10 of them, then close
  badversion  a HELLO of protocol version 5 (ours is 4)
  silent      connect and send nothing; wait (at most 30 s) for the server
  close       connect and close at once
  peergid N   a valid rc_pingpong HELLO (RoCE, active MTU 1024) asking for
              the server's GID index N (peer_gid_index, --probe's rows)

Prints what the server answered: "ERROR: <text>" for an ERROR record,
"EOF" when it closed without one (silent: "EOF after 2003 ms").  Exit 0
unless the connection failed.
The records are docs/protocol.md's: a 12-byte header (magic "PPNG",
version, type, body length; big endian), ERROR = code + 244 bytes of text.
"""
import random
import socket
import struct
import sys
import time

MAGIC = 0x50504E47
HELLO = 1
ERROR = 5
VERSION = 4  # PP_WIRE_VERSION; VERSION + 1 is a future one


def header(version, mtype, length):
    return struct.pack(">IHHI", MAGIC, version, mtype, length)


def hello_body():
    # the body does not matter: every case is refused before it is decoded
    return bytes(64)


def rc_hello(peer_gid_index):
    """A HELLO body an rc_pingpong client of version 4 could send."""
    return struct.pack(
        ">BBHIQQIIBBHHBBIIBBHIBBH4x",
        1, 1, 0, 0,           # tool rc, transport RC, flags, mtu auto
        4096, 1000, 500, 1,   # size, iters, rx_depth, num_qps
        0, 2, 1024, 1, 3, 0,  # sl, Ethernet, active MTU, GID 1 RoCE v2
        0, 0, 64, 0, 0, 0,    # warmup, duration, hop limit, tclass, P_Key, flow
        0, 0, peer_gid_index)  # op, reserved, peer_gid_index


def read_answer(s):
    s.settimeout(30)
    data = b""
    try:
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except (ConnectionResetError, socket.timeout):
        pass
    if len(data) >= 12 + 4:
        magic, _ver, mtype, length = struct.unpack(">IHHI", data[:12])
        if magic == MAGIC and mtype == ERROR:
            text = data[16:12 + length].split(b"\0", 1)[0]
            return "ERROR: " + text.decode("ascii", "replace")
    return "EOF" if not data else "BYTES: %d" % len(data)


def main():
    mode, host, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    s = socket.create_connection((host, port), timeout=10)
    if mode == "garbage":
        rnd = random.Random(9)
        s.sendall(bytes(rnd.randrange(256) for _ in range(64)))
    elif mode == "truncated":
        s.sendall(header(VERSION, HELLO, 64) + hello_body()[:10])
        s.close()
        print("closed")
        return
    elif mode == "badversion":
        s.sendall(header(VERSION + 1, HELLO, 64) + hello_body())
    elif mode == "silent":
        t0 = time.monotonic()
        answer = read_answer(s)
        print("%s after %d ms" % (answer, (time.monotonic() - t0) * 1000))
        return
    elif mode == "peergid":
        s.sendall(header(VERSION, HELLO, 64) + rc_hello(int(sys.argv[4])))
    elif mode == "close":
        s.close()
        print("closed")
        return
    else:
        sys.exit("unknown mode " + mode)
    print(read_answer(s))
    s.close()


if __name__ == "__main__":
    main()
