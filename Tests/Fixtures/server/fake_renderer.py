#!/usr/bin/env python3
"""A misbehaving stand-in for `imgfetch renderer serve`, for RendererTests.

Listens at the Unix socket file PATH and, for each connection, does what MODE says:
  hangup   read the first bytes of the request, then close without a reply
  garbage  read the first bytes, then send bytes that are not a frame
  forged   read the whole request, then send a well-formed reply whose body is b"FORGED" (a client must
           never write it: with --user the renderer is another user's; otherwise it is not a JPEG)
  mislabel read the whole request, then reply with a real 1x1 PNG labelled as a 64x64 JPEG
  resized  read the whole request, then reply with a real 1x1 PNG labelled as the 1x1 PNG it is when the client
           asked for JPEG (what was asked for is checked too)
  busy     read the whole request, then send a keep-alive frame every 0.2 s and never a result, until the client
           hangs up (so the client's 3 s patience never runs out)
  noaccept listen, and never accept a connection (a squatter)
  junk     (client side) connect to PATH, send a frame that announces a 4 GiB header; print "closed" when the
           renderer hangs up without a reply
  old      (client side) the same with a well-formed status request of another imgfetch version
With --user UID it drops to that user before listening, so its peers see that user. With --count-file FILE it
appends a line to FILE for each connection it accepts, before serving it. With --lock it holds the lock a real
renderer holds (PATH.lock, flock), so that clients take it for a running renderer.
Writes its pid to READY-FILE once listening, and with --got-request FILE writes FILE once it has read a whole request;
runs until killed.
"""
import argparse, base64, fcntl, os, signal, socket, struct, sys, time

PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")


def read_exactly(conn, count):
    data = b""
    while len(data) < count:
        chunk = conn.recv(count - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def read_frame(conn):
    head = read_exactly(conn, 4)
    if head is None:
        return None
    header = read_exactly(conn, struct.unpack(">I", head)[0])
    size = read_exactly(conn, 8)
    if header is None or size is None:
        return None
    return header, read_exactly(conn, struct.unpack(">Q", size)[0])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("path")
    parser.add_argument("mode", choices=["hangup", "garbage", "forged", "mislabel", "resized", "busy", "noaccept",
                                         "junk", "old"])
    parser.add_argument("--user", type=int)
    parser.add_argument("--ready-file")
    parser.add_argument("--got-request")
    parser.add_argument("--count-file")
    parser.add_argument("--lock", action="store_true")
    args = parser.parse_args()

    if args.mode in ("junk", "old"):
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(args.path)
        if args.mode == "junk":
            client.sendall(struct.pack(">I", 0xFFFFFFFF) + b"x" * 64)
        else:
            header = b"command=status\nversion=0.0.0/0\n"
            client.sendall(struct.pack(">I", len(header)) + header + struct.pack(">Q", 0))
        client.settimeout(10)
        try:
            reply = client.recv(100)
            print("closed" if not reply else "replied %d bytes" % len(reply))
        except ConnectionResetError:
            print("closed")
        except OSError as error:
            print("error", error)
        return

    # Opened before dropping privileges: the other user may not write where the tests are.
    ready = open(args.ready_file, "w") if args.ready_file else None
    if args.user is not None:
        os.setgid(args.user)
        os.setuid(args.user)
    if args.lock:
        lock = open(args.path + ".lock", "w")
        fcntl.flock(lock, fcntl.LOCK_EX)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(args.path):
        os.unlink(args.path)
    server.bind(args.path)
    server.listen(1 if args.mode == "noaccept" else 16)
    if ready:
        ready.write(str(os.getpid()))
        ready.close()
    while args.mode == "noaccept":
        signal.pause()
    while True:
        conn, _ = server.accept()
        if args.count_file:
            with open(args.count_file, "a") as count:
                count.write("accepted\n")
        try:
            if args.mode == "hangup":
                conn.recv(4)
            elif args.mode == "garbage":
                conn.recv(4)
                conn.sendall(b"\x00\x00\x00\x05hello, this is not a frame")
            elif args.mode == "busy":
                read_frame(conn)
                if args.got_request:
                    with open(args.got_request, "w") as marker:
                        marker.write("1")
                alive = b"alive=1\n"
                while True:
                    conn.sendall(struct.pack(">I", len(alive)) + alive + struct.pack(">Q", 0))
                    time.sleep(0.2)
            elif args.mode in ("mislabel", "resized"):
                read_frame(conn)
                header = b"format=jpeg\nwidth=64\nheight=64\nframes=1\n" if args.mode == "mislabel" \
                    else b"format=png\nwidth=1\nheight=1\nframes=1\n"
                conn.sendall(struct.pack(">I", len(header)) + header + struct.pack(">Q", len(PNG_1X1)) + PNG_1X1)
                continue
            else:
                read_frame(conn)
                header = b"format=jpeg\nwidth=1\nheight=1\nframes=1\n"
                body = b"FORGED"
                conn.sendall(struct.pack(">I", len(header)) + header + struct.pack(">Q", len(body)) + body)
        except OSError:
            pass
        finally:
            conn.close()


if __name__ == "__main__":
    sys.exit(main())
