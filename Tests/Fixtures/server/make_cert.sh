#!/bin/sh
# Generate a self-signed certificate for the fixture server's --tls option.
# Usage: make_cert.sh DIR   -> writes DIR/cert.pem and DIR/key.pem
# (CN=localhost, subjectAltName IP:127.0.0.1 and DNS:localhost, valid 2 days)
set -eu
if [ $# -ne 1 ]; then
    echo "usage: $0 DIR" >&2
    exit 2
fi
dir=$1
mkdir -p "$dir"
if ! out=$(openssl req -x509 -newkey rsa:2048 -nodes -days 2 \
        -subj /CN=localhost \
        -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" \
        -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>&1); then
    printf '%s\n' "$out" >&2
    echo "make_cert.sh: openssl failed" >&2
    exit 1
fi
