// Command composecheck validates docker-compose.yml the way Docker Compose
// v2 reads it (compose-go: the Compose Specification's schema, variable
// interpolation, references between services), where no docker compose is
// installed. .ci/run runs it; it is a module of its own so that the
// project's go.mod does not carry compose-go.
//
//	go run . ../../docker-compose.yml
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: composecheck FILE")
		os.Exit(2)
	}
	path, err := filepath.Abs(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	opts, err := cli.NewProjectOptions([]string{path},
		cli.WithWorkingDirectory(filepath.Dir(path)),
		cli.WithName("nqueens"),
		cli.WithOsEnv,
		// Every profile's services too (the opt-in cache).
		cli.WithProfiles([]string{"*"}),
	)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	project, err := opts.LoadProject(context.Background())
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	fmt.Printf("%s: valid; services %v\n", os.Args[1], project.ServiceNames())
}
