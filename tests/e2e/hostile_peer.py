#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""hostile_peer.py MODE HOST PORT [N]: play a bad client against a server.

MODE is one of
  garbage     64 random bytes (fixed seed): not our protocol at all
  truncated   a HELLO header announcing 72 bytes, 10 of them, then close
  badversion  a HELLO of the protocol version after ours (PP_WIRE_VERSION)
  silent      connect and send nothing; wait (at most 30 s) for the server
  close       connect and close at once
  uc-read     a good HELLO of rc_pingpong asking for RDMA Read on UC
  ud-write    a good HELLO of ud_pingpong asking for RDMA Write on UD
  atomic-16   a good HELLO of rc_pingpong asking for a 16-byte fetch-add
              (these three: what our client refuses to send; the server
              must refuse them too, naming the rule)
  peergid N   a valid rc_pingpong HELLO (RoCE, active MTU 1024) asking for
              the server's GID index N (peer_gid_index, --probe's rows)
  pkey N      a valid rc_pingpong HELLO (RoCE) in the partition of P_Key N

Prints what the server answered: "ERROR: <text>" for an ERROR record,
"EOF" when it closed without one (silent: "EOF after 2003 ms").  Exit 0
unless the connection failed.
The records are docs/dev/protocol.md's: a 12-byte header (magic "PPNG",
version, type, body length; big endian), ERROR = code + 244 bytes of text.
"""
import os
import random
import re
import socket
import struct
import sys
import time

MAGIC = 0x50504E47
HELLO = 1
ERROR = 5


def wire_define(name):
    """A #define of common/base/pp_wire.h, the one source of the format."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "..", "..", "common", "base", "pp_wire.h")
    with open(path) as f:
        m = re.search(r"^#define %s (\d+)$" % name, f.read(), re.M)
    return int(m.group(1))


VERSION = wire_define("PP_WIRE_VERSION")  # VERSION + 1 is a future one
HELLO_LEN = wire_define("PP_WIRE_HELLO_LEN")


def header(version, mtype, length):
    return struct.pack(">IHHI", MAGIC, version, mtype, length)


def hello_body():
    # the body does not matter: every case is refused before it is decoded
    return bytes(HELLO_LEN)


def hello(tool, transport, op=0, size=4096, link_layer=0, gid_index=0xFFFF,
          gid_type=0, peer_gid_index=0xFFFF, pkey=0xFFFF):
    """A HELLO body that decodes (pp_wire.h's layout, version 7)."""
    return struct.pack(
        ">BBHIQQIIBBHHBBIIBBHIBBHIBBBBHH",
        tool, transport, 0, 0, size, 10, 500, 1,  # flags, mtu, size, iters
        0, link_layer, 1024, gid_index, gid_type, 0,  # sl, link, active MTU, GID
        0, 0, 64, 0, pkey, 0,  # warmup, duration, hop limit, tclass, P_Key, flow
        op, 0, peer_gid_index, 5000,  # op, reserved, peer_gid_index, -T in ms
        14, 7, 7, 0,  # QP timeout, retry count, RNR retry, reserved
        1500, 0)  # netdev MTU, --expect-mtu


OP_CASES = {
    "uc-read": (1, 2, 3, 4096),
    "ud-write": (2, 3, 1, 1024),
    "atomic-16": (1, 1, 4, 16),
}


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
        s.sendall(header(VERSION, HELLO, HELLO_LEN) + hello_body()[:10])
        s.close()
        print("closed")
        return
    elif mode == "badversion":
        s.sendall(header(VERSION + 1, HELLO, HELLO_LEN) + hello_body())
    elif mode == "silent":
        t0 = time.monotonic()
        answer = read_answer(s)
        print("%s after %d ms" % (answer, (time.monotonic() - t0) * 1000))
        return
    elif mode in OP_CASES:
        s.sendall(header(VERSION, HELLO, HELLO_LEN) + hello(*OP_CASES[mode]))
    elif mode == "peergid":
        # rc on Ethernet, its GID 1 RoCE v2, asking for the server's GID N
        s.sendall(header(VERSION, HELLO, HELLO_LEN) + hello(
            1, 1, link_layer=2, gid_index=1, gid_type=3,
            peer_gid_index=int(sys.argv[4])))
    elif mode == "pkey":
        # rc on Ethernet with a GID, in partition P_Key N (argv[4])
        s.sendall(header(VERSION, HELLO, HELLO_LEN) + hello(
            1, 1, link_layer=2, gid_index=1, gid_type=3,
            pkey=int(sys.argv[4], 0)))
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
