package views

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// animation is a Tailwind animation class with its variants (e.g. "motion-safe:animate-pulse").
var animation = regexp.MustCompile(`[\w:-]*animate-[\w-]+`)

// Every animation of the views and the stylesheet runs only for a viewer who has not asked
// the system for reduced motion (Tailwind's motion-safe variant): a live dot pulses for as
// long as the page is open, which such a viewer should not have to watch.
func TestAnimationsRespectReducedMotion(t *testing.T) {
	files, err := filepath.Glob("*.templ")
	if err != nil || len(files) == 0 {
		t.Fatalf("no templ files: %v", err)
	}
	files = append(files, filepath.Join("..", "static", "src", "app.css"))
	found := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, class := range animation.FindAllString(string(src), -1) {
			found++
			if !strings.Contains(class, "motion-safe:") {
				t.Errorf("%s: %q animates for viewers who asked for reduced motion: write motion-safe:%s", f, class, class)
			}
		}
	}
	if found == 0 {
		t.Fatal("no animation class found: the pattern no longer matches the views")
	}
}
