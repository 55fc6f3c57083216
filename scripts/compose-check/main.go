// Loads a compose file the way `docker compose config` does (compose-spec's own loader:
// interpolation, the compose-spec JSON schema, references between services, profiles) and
// prints the resolved project as JSON; a file it refuses exits 1 with the loader's message.
// No container engine is needed: the tests validate docker-compose.yml with it.
//
//	go run ./scripts/compose-check [--profile name]... docker-compose.yml
package main

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

type profiles []string

func (p *profiles) String() string     { return fmt.Sprint(*p) }
func (p *profiles) Set(v string) error { *p = append(*p, v); return nil }

func main() {
	var active profiles
	flag.Var(&active, "profile", "a profile to enable (repeatable)")
	flag.Parse()
	opts, err := cli.NewProjectOptions(flag.Args(), cli.WithOsEnv, cli.WithProfiles(active), cli.WithResolvedPaths(false))
	if err == nil {
		project, loadErr := opts.LoadProject(context.Background())
		if loadErr == nil {
			out, marshalErr := project.MarshalJSON()
			if marshalErr == nil {
				os.Stdout.Write(out)
				return
			}
			loadErr = marshalErr
		}
		err = loadErr
	}
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
