package lint

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The modelling reference and the design contract live in the repository
// (docs/model.md, docs/design.md). Code cites a model section as
// "docs/model.md §6.7" and a design section by its title, as
// `docs/design.md "Outputs"`. In this repository § always means a section
// of docs/model.md, so every §N anywhere must name one of its headings,
// even when a comment wraps between the file name and the number.

var (
	// modelHeading matches "## 6. RNIC schedulers" and "### 6.7 STORM: ...".
	modelHeading  = regexp.MustCompile(`(?m)^#{2,4} (\d+(?:\.\d+)*)\.? `)
	designHeading = regexp.MustCompile(`(?m)^#{2,4} (.+?)\s*$`)
	// sectionRef is §N(.M)*, optionally a range §N.M-K(.L)*.
	sectionRef = regexp.MustCompile(`§(\d+(?:\.\d+)*)(?:-(\d+(?:\.\d+)*))?`)
	// designRef is docs/design.md "Title", a comma or a comment's line
	// break allowed before the quote.
	designRef = regexp.MustCompile(`docs/design\.md,?(?:[ \t]+|[ \t]*\n[ \t]*(?://|#)?[ \t]*)"([^"\n]+)"`)
	// outside names the two files as they were before they moved in:
	// "DESIGN.md", "REFERENCE.md" and the short forms "REFERENCE 7.2"
	// (across a comment's line break too) and `DESIGN "Outputs"`.
	outside = regexp.MustCompile(`\b(?:DESIGN|REFERENCE)\.md\b|\bREFERENCE(?:\s|//|#)+(?:table\s+)?\d|\bDESIGN\s+"`)
)

// self is this file, whose cases cite wrongly on purpose.
const self = "internal/lint/docs_test.go"

// formerNames are the files allowed to say where they came from.
var formerNames = map[string]bool{"docs/model.md": true, "docs/design.md": true}

func TestModelCitations(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	model, err := os.ReadFile(filepath.Join(root, "docs", "model.md"))
	if err != nil {
		t.Fatal(err)
	}
	design, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections, dup := headingSet(modelHeading, string(model))
	if len(dup) > 0 {
		t.Errorf("docs/model.md: section numbers used twice: %s", strings.Join(dup, ", "))
	}
	if len(sections) < 50 {
		t.Fatalf("docs/model.md: found %d numbered headings, want the reference's 12 chapters and their sections", len(sections))
	}
	titles, _ := headingSet(designHeading, string(design))

	checked, cites := 0, 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && strings.HasPrefix(d.Name(), ".") && d.Name() != ".ci" {
				return filepath.SkipDir
			}
			return nil
		}
		text, ok := readText(path)
		if !ok {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == self {
			return nil
		}
		checked++
		errs := citationErrors(rel, text, sections, titles)
		cites += strings.Count(text, "§") + len(designRef.FindAllStringIndex(text, -1))
		for _, e := range errs {
			t.Error(e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 || cites < 100 {
		t.Errorf("checked %d files and %d citations: the walk missed the tree", checked, cites)
	}
}

// headingSet returns the first capture of re in every heading, and which
// of them repeat.
func headingSet(re *regexp.Regexp, text string) (map[string]bool, []string) {
	set := map[string]bool{}
	var dup []string
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		if set[m[1]] {
			dup = append(dup, m[1])
		}
		set[m[1]] = true
	}
	return set, dup
}

// readText reads a file that may hold citations: source, scripts, YAML and
// Markdown. Binary files (parquet, images) and large data files are
// skipped.
func readText(path string) (string, bool) {
	switch filepath.Ext(path) {
	case ".go", ".md", ".yaml", ".yml", ".sh", ".txt", ".py", ".ipynb", ".csv", ".sql", "":
	default:
		return "", false
	}
	info, err := os.Stat(path)
	if err != nil || info.Size() > 4<<20 {
		return "", false
	}
	b, err := os.ReadFile(path)
	if err != nil || bytes.IndexByte(b, 0) >= 0 {
		return "", false
	}
	return string(b), true
}

// citationErrors checks one file: no DESIGN.md or REFERENCE.md, every §
// a section of docs/model.md, every quoted docs/design.md title one of
// its headings.
func citationErrors(name, text string, sections, titles map[string]bool) []string {
	var errs []string
	line := func(off int) int { return 1 + strings.Count(text[:off], "\n") }
	if !formerNames[name] {
		for _, m := range outside.FindAllStringIndex(text, -1) {
			errs = append(errs, fmt.Sprintf("%s:%d: cites %s, which is not in the repository: cite docs/model.md §N or docs/design.md \"Title\"",
				name, line(m[0]), text[m[0]:m[1]]))
		}
	}
	for _, m := range sectionRef.FindAllStringSubmatchIndex(text, -1) {
		for _, g := range []int{2, 4} {
			if m[g] < 0 {
				continue
			}
			if n := text[m[g]:m[g+1]]; !sections[n] {
				errs = append(errs, fmt.Sprintf("%s:%d: %s: docs/model.md has no section %s", name, line(m[0]), text[m[0]:m[1]], n))
			}
		}
	}
	for _, m := range designRef.FindAllStringSubmatchIndex(text, -1) {
		if title := text[m[2]:m[3]]; !titles[title] {
			errs = append(errs, fmt.Sprintf("%s:%d: docs/design.md has no section %q", name, line(m[0]), title))
		}
	}
	return errs
}

func TestCitationErrors(t *testing.T) {
	sections := map[string]bool{"6": true, "6.7": true, "7.4": true, "7.6": true, "11.2": true}
	titles := map[string]bool{"Outputs": true, "Model rules": true}
	for _, tc := range []struct {
		name, text string
		want       int
	}{
		{"a.go", "// STORM (docs/model.md §6.7 and §11.2).", 0},
		{"a.go", "// fields (docs/model.md\n// §7.4-7.6): header", 0},
		{"a.go", "// fields (docs/model.md §7.4-7.5)", 1},
		{"a.go", "// the guard (docs/model.md §6.8)", 1},
		{"a.yaml", "# docs/model.md §6 and §12", 1},
		{"a.go", "// KiB (docs/design.md, \"Model rules\").", 0},
		{"a.go", "// run directory (docs/design.md\n// \"Outputs\")", 0},
		{"a.go", "// run directory (docs/design.md \"Output\")", 1},
		{"a.go", "// (REFERENCE.md 6.7)", 1},
		{"a.sh", "# see DESIGN.md", 1},
		{"a.go", "// the rule of REFERENCE 7.2", 1},
		{"a.go", "// the topology (REFERENCE\n// 2.3)", 1},
		{"a.go", "// (REFERENCE table 7.1)", 1},
		{"a.md", "the output contract, DESIGN \"Model rules\"", 1},
		{"a.go", "// REFERENCE_HEADERS and DESIGNS", 0},
		{"docs/model.md", "kept outside the repository as `REFERENCE.md`", 0},
		{"README.md", "(REFERENCE.md 6.7)", 1},
	} {
		if got := citationErrors(tc.name, tc.text, sections, titles); len(got) != tc.want {
			t.Errorf("%s %q: got %d errors %q, want %d", tc.name, tc.text, len(got), got, tc.want)
		}
	}
}
