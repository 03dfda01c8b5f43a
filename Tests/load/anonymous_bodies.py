#!/usr/bin/env python3
"""Anonymous bodies against a running `paypanel serve`: N connections each send a request head
without a credential and then a 1 MiB body (all but its last byte first, so a server that buffered
bodies before checking the credential would hold all of them at once), then every answer is read.
Prints the count of each status line, and, given the server's pid, its resident memory before and
its peak after (VmRSS, VmHWM from /proc).

    paypanel serve --port 0 --db /tmp/a.sqlite --processor-db /tmp/b.sqlite &
    python3 Tests/load/anonymous_bodies.py --port PORT --pid PID --connections 1000

The numbers are in docs/http-core.md ("Measured").
"""
import argparse
import socket


def memory(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pid", type=int)
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--path", default="/v1/payment_intents")
    arguments = parser.parse_args()
    size = 1024 * 1024
    head = (f"POST {arguments.path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {size}\r\n\r\n").encode()
    body = b" " * (size - 1)
    before = memory(arguments.pid, "VmRSS") if arguments.pid else None
    connections = []
    for _ in range(arguments.connections):
        connection = socket.create_connection(("127.0.0.1", arguments.port))
        connection.settimeout(30)
        connection.sendall(head)
        try:
            connection.sendall(body)
        except OSError:
            pass  # the server answered and stopped discarding: what a client sees then
        connections.append(connection)
    statuses = {}
    for connection in connections:
        try:
            line = connection.recv(4096).split(b"\r\n")[0].decode()
        except OSError as error:
            line = f"no answer ({error})"
        statuses[line] = statuses.get(line, 0) + 1
        connection.close()
    print(statuses)
    if arguments.pid:
        print(f"resident before: {before} MiB, peak: {memory(arguments.pid, 'VmHWM')} MiB")


if __name__ == "__main__":
    main()
