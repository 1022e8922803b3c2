package main

import (
	"os"
	"testing"

	"github.com/zpulse/zpulse/internal/redistest"
)

// asProgram is the environment variable that makes the test binary run the program itself:
// a test that needs real processes (to SIGKILL one) starts this binary with it, which costs
// no separate build.
const asProgram = "ZPULSE_TEST_RUN_PROGRAM"

func TestMain(m *testing.M) {
	if os.Getenv(asProgram) == "1" {
		main()
		os.Exit(0)
	}
	redistest.Main(m)
}
