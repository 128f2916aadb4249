# syntax=docker/dockerfile:1
# The nqueens image: one static binary (pure Go, SQLite included, no cgo)
# on distroless's static base, run as a non-root user.
#
#   docker build --build-arg NQUEENS_REVISION=$(git rev-parse HEAD) -t nqueens .
#   docker run -d -p 8080:8080 -v nqueens-data:/var/lib/nqueens nqueens   # serve, SQLite in a named volume
#   docker run --rm nqueens count 12
#
# docker-compose.yml runs it with Postgres and scalable workers.

FROM golang:1.26 AS build
WORKDIR /src
# Modules first, so that a change to the code reuses the downloaded modules.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# .git stays out of the build context (.dockerignore), so the go command
# has no commit to stamp: `nqueens version` and nqueens_build_info take
# these instead, when given.
ARG NQUEENS_VERSION=
ARG NQUEENS_REVISION=
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath \
      -ldflags="-s -w -X github.com/nqueens/nqueens/internal/buildinfo.version=${NQUEENS_VERSION} -X github.com/nqueens/nqueens/internal/buildinfo.revision=${NQUEENS_REVISION}" \
      -o /out/nqueens ./cmd/nqueens
# The SQLite file's directory, owned by the nonroot user: the final image
# has no shell to make it. A named volume mounted there starts as a copy
# of it, owner included.
RUN mkdir -p /out/data

# distroless static: CA certificates, /etc/passwd with the nonroot user,
# no shell and no package manager. The binary needs nothing more.
FROM gcr.io/distroless/static-debian12:nonroot
ARG NQUEENS_REVISION=
LABEL org.opencontainers.image.title="nqueens" \
      org.opencontainers.image.revision="${NQUEENS_REVISION}"
COPY --from=build /out/nqueens /usr/local/bin/nqueens
COPY --from=build --chown=65532:65532 /out/data /var/lib/nqueens
# Without DATABASE_URL, serve keeps its SQLite file in the volume, not in
# the container's own layer (lost with the container).
ENV NQUEENS_SQLITE_PATH=/var/lib/nqueens/nqueens.db
VOLUME ["/var/lib/nqueens"]
# 65532 is distroless's "nonroot"; numeric, so that Kubernetes'
# runAsNonRoot can check it.
USER 65532:65532
WORKDIR /home/nonroot
EXPOSE 8080
# Ready when /readyz says so (the database answers, the schema is current,
# the workers run). The image has no shell or curl: the binary asks, in
# exec form, at serve's NQUEENS_ADDR. Containers that do not serve (a
# worker, a one-shot command) turn it off: docker run --no-healthcheck,
# or healthcheck: disable in compose.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
    CMD ["/usr/local/bin/nqueens", "healthcheck"]
ENTRYPOINT ["/usr/local/bin/nqueens"]
CMD ["serve"]
