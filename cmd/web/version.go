package main

import (
	"fmt"
	"runtime/debug"
)

// version describes the running binary from the build information Go records in it: the
// module version (`go install …@v1.2.3`, "(devel)" from a checkout) and, when built from a
// git checkout, the commit, its time and whether the tree had changes.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "zpulse (no build information)"
	}
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	commit := settings["vcs.revision"]
	if commit == "" {
		commit = "unknown"
	}
	if settings["vcs.modified"] == "true" {
		commit += " (modified)"
	}
	out := fmt.Sprintf("zpulse %s\ncommit %s\n", info.Main.Version, commit)
	if t := settings["vcs.time"]; t != "" {
		out += "committed " + t + "\n"
	}
	return out + "built with " + info.GoVersion + "\n"
}
