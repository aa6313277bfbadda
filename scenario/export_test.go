package scenario

import "github.com/google/go-cmp/cmp/cmpopts"

// testCat is the catalog of this package's own tests: the real one, which
// package wiring makes. Only an external test package can import wiring
// (it imports scenario), so wiring_ext_test.go sets it in its init, before
// any test runs.
var testCat *Catalog

// SetTestCatalog sets testCat.
func SetTestCatalog(c *Catalog) { testCat = c }

// ignoreCat leaves a Scenario's catalog out of cmp.Diff: scenarios read
// with one catalog share it, and its functions do not compare.
var ignoreCat = cmpopts.IgnoreUnexported(Scenario{})
