# Python for deploy/Dockerfile's BASE, from Debian's packages (scripts/deploy-drill: no
# image registry is reached). pip trusts the system's certificates, this machine's
# included.
ARG BASE=localhost/pips-debian:bookworm
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends python3 python3-venv passwd \
    && rm -rf /var/lib/apt/lists/*
ENV PIP_CERT=/etc/ssl/certs/ca-certificates.crt
