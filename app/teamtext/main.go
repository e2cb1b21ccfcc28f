// Command teamtext is the teamtext server and its operator CLI.
package main

import (
	"os"
	_ "time/tzdata" // team time zones must resolve on hosts without zoneinfo

	"github.com/teamtext/teamtext/app"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(app.Main(os.Args[1:], version, os.Stdout, os.Stderr))
}
