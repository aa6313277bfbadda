package scenario_test

import (
	"github.com/dcsim/dcsim/scenario"
	"github.com/dcsim/dcsim/wiring"
)

func init() { scenario.SetTestCatalog(wiring.Catalog()) }
