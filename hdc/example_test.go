package hdc_test

import (
	"fmt"

	"github.com/winbridge/winbridge/hdc"
)

// Device commands that pipe or quote travel as one argument, encoded when
// the host's quoting could damage them.
func ExampleNeedsEncoding() {
	fmt.Println(hdc.NeedsEncoding("ls /data | wc -l"))
	fmt.Println(hdc.NeedsEncoding(`echo "中文" > /data/local/tmp/x`))
	// Output:
	// false
	// true
}

// Destructive verbs need confirm: true, whichever tool reaches them.
func ExampleIsDestructive() {
	fmt.Println(hdc.IsDestructive("install", []string{"app.hap"}))
	fmt.Println(hdc.IsDestructive("list", []string{"targets"}))
	// Output:
	// true
	// false
}
