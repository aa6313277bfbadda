// Package docs holds the repository's documentation and the test that
// keeps its links from rotting: every relative Markdown link and image in
// README.md and docs/**/*.md must name a file that exists, and a #anchor
// into a Markdown file must name one of its headings, slugged as GitHub
// renders them.
package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
)

var (
	// inlineLink matches [text](target) and ![alt](target "title"); the
	// text may hold one level of brackets, as in [`a[0]`](x).
	inlineLink = regexp.MustCompile(`!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)`)
	// refDef matches a reference definition, [label]: target.
	refDef    = regexp.MustCompile(`^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$`)
	codeSpan  = regexp.MustCompile("`+[^`]*`+")
	atx       = regexp.MustCompile(`^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$`)
	hasScheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// link is one link found in a Markdown file.
type link struct {
	file   string // repository-relative, slash-separated
	line   int
	target string
}

func TestLinks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	files, err := markdownFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	errs, n := checkLinks(root, files)
	for _, e := range errs {
		t.Error(e)
	}
	// The README and docs/ hold hundreds of links: far fewer means the
	// parser, not the documents, went wrong.
	if len(files) < 10 || n < 100 {
		t.Errorf("checked %d links in %d files: the walk or the parser missed them", n, len(files))
	}
}

// TestChecker shows that the check fails where it should: a missing file,
// a missing heading, a link out of the repository; and that code is not
// read as links.
func TestChecker(t *testing.T) {
	root := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("README.md", strings.Join([]string{
		"# Top",
		"[ok](docs/a.md#a-b-c) [ok](docs/a.md) ![img](x.png) [self](#top) [web](https://example.com/none)",
		"[dir](docs/) [ok](docs/a.md#a-b-c-1) [ok](docs/a.md#tutorial-compare-fair-srpt-and-storm)",
		"[missing](docs/none.md)",
		"[anchor](docs/a.md#nowhere)",
		"[escape](../outside.md)",
		"`[code](not-a-link.md)` and",
		"```",
		"[fenced](not-a-link.md)",
		"```",
		"[ref]: docs/gone.md",
	}, "\n"))
	write("x.png", "")
	write("docs/a.md", "# A, b `c`!\n\n## A b c\n\n## Tutorial: compare fair, SRPT and STORM\n\n```\n# not a heading\n```\n")
	errs, n := checkLinks(root, []string{"README.md", "docs/a.md"})
	want := []string{
		"README.md:4: docs/none.md: no such file",
		"README.md:5: docs/a.md#nowhere: docs/a.md has no heading #nowhere",
		"README.md:6: ../outside.md: outside the repository",
		"README.md:11: docs/gone.md: no such file",
	}
	if strings.Join(errs, "\n") != strings.Join(want, "\n") {
		t.Errorf("got errors\n%s\nwant\n%s", strings.Join(errs, "\n"), strings.Join(want, "\n"))
	}
	if n != 11 {
		t.Errorf("checked %d links, want 11", n)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"PFC headroom: lossless at any MTU":                               "pfc-headroom-lossless-at-any-mtu",
		"Scenarios, `--set` and standard input":                           "scenarios---set-and-standard-input",
		"2. Large fabrics and deep queues":                                "2-large-fabrics-and-deep-queues",
		"The adapting switch's input buffer":                              "the-adapting-switchs-input-buffer",
		"See [the model](model.md) §6.7":                                  "see-the-model-67",
		"Against the HPCC ns-3 model, flow for flow":                      "against-the-hpcc-ns-3-model-flow-for-flow",
		"Reordering is not loss: the reorder-tolerant selective receiver": "reordering-is-not-loss-the-reorder-tolerant-selective-receiver",
		"Why the deep-queue case is at 69% (Intel) or 49% (AMD), not 70%": "why-the-deep-queue-case-is-at-69-intel-or-49-amd-not-70",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
}

// markdownFiles returns README.md and every .md file under docs/,
// repository-relative and sorted.
func markdownFiles(root string) ([]string, error) {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(files[1:])
	return files, err
}

// checkLinks checks every relative link of files and returns one line per
// broken link, and how many links it checked.
func checkLinks(root string, files []string) ([]string, int) {
	var errs []string
	anchors := map[string]map[string]bool{} // by repository-relative .md file
	n := 0
	for _, f := range files {
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", f, err))
			continue
		}
		for _, l := range links(f, string(text)) {
			if hasScheme.MatchString(l.target) {
				continue // a URL: not checked offline
			}
			n++
			if e := checkLink(root, l, anchors); e != "" {
				errs = append(errs, fmt.Sprintf("%s:%d: %s: %s", l.file, l.line, l.target, e))
			}
		}
	}
	return errs, n
}

// checkLink returns what is wrong with one link, or "".
func checkLink(root string, l link, anchors map[string]map[string]bool) string {
	path, anchor, _ := strings.Cut(l.target, "#")
	target := l.file // a bare #anchor is into the file itself
	if path != "" {
		target = filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(l.file), filepath.FromSlash(path))))
		if target == ".." || strings.HasPrefix(target, "../") || filepath.IsAbs(path) {
			return "outside the repository"
		}
	}
	if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
		return "no such file"
	}
	if anchor == "" || !strings.HasSuffix(target, ".md") {
		return ""
	}
	set, ok := anchors[target]
	if !ok {
		text, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(target)))
		if err != nil {
			return err.Error()
		}
		set = headings(string(text))
		anchors[target] = set
	}
	if !set[anchor] {
		return fmt.Sprintf("%s has no heading #%s", target, anchor)
	}
	return ""
}

// links returns the links of a Markdown text outside fenced code blocks
// and code spans.
func links(file, text string) []link {
	var out []link
	fence := ""
	for i, line := range strings.Split(text, "\n") {
		if f := fenceOf(line); f != "" {
			switch {
			case fence == "":
				fence = f
				continue
			case strings.HasPrefix(f, fence[:1]) && len(f) >= len(fence):
				fence = ""
				continue
			}
		}
		if fence != "" {
			continue
		}
		line = codeSpan.ReplaceAllString(line, "")
		if m := refDef.FindStringSubmatch(line); m != nil {
			out = append(out, link{file, i + 1, m[1]})
			continue
		}
		for _, m := range inlineLink.FindAllStringSubmatch(line, -1) {
			out = append(out, link{file, i + 1, m[1]})
		}
	}
	return out
}

// fenceOf returns the fence (``` or ~~~, possibly longer) a line opens or
// closes, or "".
func fenceOf(line string) string {
	s := strings.TrimLeft(line, " ")
	if len(line)-len(s) > 3 {
		return ""
	}
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(s, c+c+c) {
			return s[:len(s)-len(strings.TrimLeft(s, c))]
		}
	}
	return ""
}

// headings returns the anchors of a Markdown text's ATX headings as GitHub
// makes them: the slug, and slug-1, slug-2, ... for repeats.
func headings(text string) map[string]bool {
	set := map[string]bool{}
	seen := map[string]int{}
	fence := ""
	for _, line := range strings.Split(text, "\n") {
		if f := fenceOf(line); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(f, fence[:1]) && len(f) >= len(fence) {
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		m := atx.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		s := slug(m[2])
		if k := seen[s]; k > 0 {
			set[fmt.Sprintf("%s-%d", s, k)] = true
		} else {
			set[s] = true
		}
		seen[s]++
	}
	return set
}

// mdLink is a link inside a heading: GitHub slugs its text only.
var mdLink = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)

// slug is GitHub's heading anchor: the rendered text lower-cased, every
// character but letters, digits, spaces, hyphens and underscores dropped,
// and spaces made hyphens.
func slug(heading string) string {
	heading = mdLink.ReplaceAllString(heading, "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}
