package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dcsim/dcsim/internal/invariants"
)

// tutorialHeading is the README section whose first sh block
// TestREADMETutorial runs.
const tutorialHeading = "## Tutorial: compare fair, SRPT and STORM"

// tutorialCommands returns the commands of the first ```sh block under
// heading in the Markdown file at path, with backslash continuations
// joined and comments and blank lines dropped.
func tutorialCommands(t *testing.T, path, heading string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds []string
	var cur strings.Builder
	state := 0 // 0 before the heading, 1 before the block, 2 in it
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case state == 0 && strings.TrimSpace(line) == heading:
			state = 1
		case state == 1 && strings.HasPrefix(line, "## "):
			t.Fatalf("%s: %q has no ```sh block before the next section", path, heading)
		case state == 1 && strings.TrimSpace(line) == "```sh":
			state = 2
		case state == 2 && strings.TrimSpace(line) == "```":
			if cur.Len() > 0 {
				t.Fatalf("%s: the tutorial block ends in a continuation", path)
			}
			return cmds
		case state == 2:
			l := strings.TrimSpace(line)
			if cur.Len() == 0 && (l == "" || strings.HasPrefix(l, "#")) {
				continue
			}
			if c, ok := strings.CutSuffix(l, `\`); ok {
				cur.WriteString(c)
				continue
			}
			cur.WriteString(l)
			cmds = append(cmds, cur.String())
			cur.Reset()
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	t.Fatalf("%s: no %q section with a ```sh block", path, heading)
	return nil
}

// TestREADMETutorial runs the README's tutorial as a newcomer would: every
// dcsim command of its sh block, in order and as written, in a scratch
// directory that sees the repository's examples/, with `dcsim` and
// `go run ./cmd/dcsim` both meaning the binary built here. Each must exit
// 0, and each file it names with --plot must then exist. Other programs'
// commands (the notebook) are not run here, since Python packages are not
// installed in CI; the notebook's query runs in interop/duckdb's tests.
// The README says how long each step takes; this test is that promise.
func TestREADMETutorial(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the tutorial's simulations")
	}
	if invariants.Enabled {
		t.Skip("the tutorial's runs are checked without the invariants build; with it they take 3x longer and check nothing new")
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmds := tutorialCommands(t, filepath.Join(repo, "README.md"), tutorialHeading)
	if len(cmds) == 0 {
		t.Fatal("the tutorial block has no commands")
	}
	bin := buildDcsim(t)
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(repo, "examples"), filepath.Join(work, "examples")); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, c := range cmds {
		c = strings.Replace(c, "go run ./cmd/dcsim", "dcsim", 1)
		words := strings.Fields(c)
		if words[0] != "dcsim" {
			t.Logf("not run here: %s", c)
			continue
		}
		cmd := exec.Command("sh", "-c", `"$DCSIM" `+strings.TrimPrefix(c, "dcsim"))
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "DCSIM="+bin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", c, err, out)
		}
		ran++
		for i, w := range words {
			p, ok := strings.CutPrefix(w, "--plot=")
			if w == "--plot" && i+1 < len(words) {
				p, ok = words[i+1], true
			}
			if !ok {
				continue
			}
			if st, err := os.Stat(filepath.Join(work, p)); err != nil || st.Size() == 0 {
				t.Errorf("%s: the figure %s is missing or empty (%v)", c, p, err)
			}
		}
	}
	t.Logf("%d of %d tutorial commands run", ran, len(cmds))
}

func TestTutorialCommandsParse(t *testing.T) {
	md := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(md, []byte("# x\n```sh\nnot this\n```\n"+tutorialHeading+"\ntext\n```sh\n# a comment\ndcsim run a \\\n  --out b\n\ndcsim report b\n```\n```sh\nnot this either\n```\n"), 0o644)
	got := tutorialCommands(t, md, tutorialHeading)
	want := []string{"dcsim run a --out b", "dcsim report b"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}
