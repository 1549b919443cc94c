# nginx from Debian's packages, run as the official image runs it: in the foreground,
# its sites in /etc/nginx/conf.d (scripts/deploy-drill).
ARG BASE=localhost/pips-debian:bookworm
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends nginx \
    && rm -rf /var/lib/apt/lists/* /etc/nginx/sites-enabled/default \
    && ln -sf /dev/stderr /var/log/nginx/error.log && ln -sf /dev/stdout /var/log/nginx/access.log
EXPOSE 80 443
CMD ["nginx", "-g", "daemon off;"]
