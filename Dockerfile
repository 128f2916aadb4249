# syntax=docker/dockerfile:1
# The nqueens image: one static binary (pure Go, SQLite included, no cgo)
# on distroless's static base, run as a non-root user.
#
#   docker build -t nqueens .
#   docker run --rm -p 8080:8080 nqueens            # serve, SQLite inside the container
#   docker run --rm nqueens count 12
#
# docker-compose.yml runs it with Postgres and scalable workers.

FROM golang:1.26 AS build
WORKDIR /src
# Modules first, so that a change to the code reuses the downloaded modules.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
RUN --mount=type=cache,target=/go/pkg/mod \
    --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/nqueens ./cmd/nqueens

# distroless static: CA certificates, /etc/passwd with the nonroot user,
# no shell and no package manager. The binary needs nothing more.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/nqueens /usr/local/bin/nqueens
# 65532 is distroless's "nonroot"; numeric, so that Kubernetes'
# runAsNonRoot can check it. Its home, /home/nonroot, is writable: the
# SQLite file goes there when no DATABASE_URL is given.
USER 65532:65532
WORKDIR /home/nonroot
EXPOSE 8080
ENTRYPOINT ["/usr/local/bin/nqueens"]
CMD ["serve"]
