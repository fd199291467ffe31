package dbgcmd

import (
	"sort"
	"strings"
)

// rule is what a refused name is and does.
type rule struct {
	class Class
	why   string
}

// dotCommands are the refused meta-commands, by name without the dot. A
// name is found after any '.' in the line (blanks allowed after the dot),
// so .sympath+, ~*e.shell and "bp x \".logopen f\"" are all seen.
var dotCommands = map[string]rule{
	// The session ends under the caller: the cdb server opens a new one
	// (losing breakpoints and state; an attached process or a remote
	// server may die with it), the extension would lose its engine or
	// wait for itself.
	"kill":        {SessionEnd, "ends the target process"},
	"detach":      {SessionEnd, "detaches from the target"},
	"abandon":     {SessionEnd, "abandons the target"},
	"restart":     {SessionEnd, "restarts the target"},
	"reboot":      {SessionEnd, "reboots the target"},
	"crash":       {SessionEnd, "crashes the target"},
	"unload":      {SessionEnd, "unloads an extension"},
	"unloadall":   {SessionEnd, "unloads every extension"},
	"endsrv":      {SessionEnd, "ends a debugging server"},
	"endpsrv":     {SessionEnd, "ends a process server"},
	"remote_exit": {SessionEnd, "exits the debugger"},

	// Programs, code and other targets on the host.
	"shell":     {Host, "runs a program on this machine"},
	"create":    {Host, "starts a program on this machine"},
	"createdir": {Host, "sets the directory .create starts programs in"},
	"attach":    {Host, "attaches to another process on this machine"},
	"opendump":  {Host, "opens another dump file of this machine"},
	"dbgdbg":    {Host, "starts another debugger on this machine"},
	"hh":        {Host, "starts the help viewer on this machine"},
	"tlist":     {Host, "lists the processes of this machine"},
	"breakin":   {Host, "breaks this machine into its kernel debugger"},
	"rrestart":  {Host, "registers the debugger to be restarted by Windows"},
	"load":      {Host, "loads a DLL into the debugger"},
	"loadby":    {Host, "loads a DLL into the debugger, from a directory the target names"},
	"setdll":    {Host, "sets the default extension DLL, loaded on first use"},
	"cordll":    {Host, "loads the CLR debugging DLL, from any path with -lp"},
	// The network.
	"server":    {Host, "opens this session to remote debugging clients"},
	"remote":    {Host, "starts a remote.exe server"},
	"netuse":    {Host, "connects a network share"},
	"netsyms":   {Host, "allows symbol paths on the network"},
	"send_file": {Host, "copies files of this machine"},
	// Files of the host: written, read, or searched.
	"logopen":        {Host, "writes a log file on this machine"},
	"logappend":      {Host, "writes a log file on this machine"},
	"writemem":       {Host, "writes a file on this machine"},
	"dump":           {Host, "writes a dump file on this machine"},
	"dumpcab":        {Host, "writes a CAB file on this machine"},
	"copysym":        {Host, "copies symbol files to a directory of this machine"},
	"write_cmd_hist": {Host, "writes the command history to a file on this machine"},
	"readmem":        {Host, "reads a file of this machine into the target"},
	"kdfiles":        {Host, "reads a driver map file of this machine"},
	"cmdtree":        {Host, "reads a command tree file of this machine"},
	"open":           {Host, "opens a source file of this machine"},
	"nvload":         {Host, "reads a NatVis file of this machine"},
	"dml_start":      {Host, "shows a DML file of this machine"},
	"sound_notify":   {Host, "plays a sound file of this machine"},
	"settings":       {Host, "loads, saves or changes the debugger's settings (its paths among them)"},
	"sympath":        {Host, "changes where symbols are searched, which can reach the network"},
	"symfix":         {Host, "points the symbol path at a symbol server on the network"},
	"srcpath":        {Host, "changes where sources are searched, which can reach the network"},
	"srcfix":         {Host, "points the source path at a source server on the network"},
	"lsrcpath":       {Host, "changes where sources are searched, which can reach the network"},
	"lsrcfix":        {Host, "points the source path at a source server on the network"},
	"exepath":        {Host, "changes where images are searched, which can reach the network"},
	"extpath":        {Host, "changes where extension DLLs are loaded from"},

	// Commands built at run time.
	"foreach":      {Indirect, "runs a command built from another command's output or a file"},
	"ocommand":     {Indirect, "runs commands that the target prints"},
	"scriptload":   {Indirect, "runs a script, which can run any command and reach files"},
	"scriptrun":    {Indirect, "runs a script, which can run any command and reach files"},
	"scriptunload": {Indirect, "runs a script's uninitializeScript"},
	"scriptdebug":  {Indirect, "runs a script under its debugger"},
}

// bangCommands are refused extension commands (!name, !module.name), by
// name; bangModules refuses every command of an extension DLL.
var (
	bangCommands = map[string]rule{
		"net_send": {Host, "sends a message over the network"},
		"homedir":  {Host, "changes the directory the symbol and source caches are written to"},
		"load":     {Host, "loads an extension DLL"},
		"py":       {Host, "runs a Python script (pykd)"},
		"pycmd":    {Host, "runs Python (pykd)"},
		"pip":      {Host, "installs Python packages (pykd)"},
		"loge":     {Host, "starts Logger, which writes log files on this machine"},
		"logo":     {Host, "sets Logger's output files on this machine"},
		// SOS (.NET).
		"savemodule":      {Host, "writes a module to a file on this machine"},
		"dumplog":         {Host, "writes the stress log to a file on this machine"},
		"setsymbolserver": {Host, "changes where symbols are searched, which can reach the network"},
		"setclrpath":      {Host, "changes where the runtime's debugging DLLs are loaded from"},
		"sethostruntime":  {Host, "loads a .NET runtime into the debugger"},
		"logopen":         {Host, "writes a log file on this machine"},
		"loadsymbols":     {Host, "downloads symbols from a symbol server on the network"},
		// The event log of this machine (ext.dll): read, cleared, backed
		// up to a file, written.
		"evlog":    {Host, "reads, changes or backs up this machine's event log"},
		"elog_str": {Host, "writes a string to this machine's event log"},
		// Trace extensions: log files written, format files and their
		// search paths read (the !wmitrace pages).
		"logsave":        {Host, "writes a trace log file on this machine"},
		"tmffile":        {Host, "reads a trace format file of this machine"},
		"searchpath":     {Host, "changes where trace format files are searched, which can reach the network"},
		"wdflogsave":     {Host, "writes a trace log file on this machine"},
		"wdftmffile":     {Host, "reads a trace format file of this machine"},
		"wdfsearchpath":  {Host, "changes where trace format files are searched, which can reach the network"},
		"rcdrlogsave":    {Host, "writes a trace log file on this machine"},
		"rcdrtmffile":    {Host, "reads a trace format file of this machine"},
		"rcdrsearchpath": {Host, "changes where trace format files are searched, which can reach the network"},
	}
	bangModules = map[string]rule{
		"pykd":    {Host, "runs Python"},
		"logexts": {Host, "writes log files on this machine"},
	}
)

// bangOptions are the options that make an extension command reach the
// host or build a command, by command name. An option is found after '-'
// or '/' anywhere after the command (an extension may read the rest of
// the line); a name of three letters or more also matches with its value
// glued to it (-xmfc:\x.xml).
var bangOptions = map[string][]bangOption{
	// !analyze -xmf writes the analysis to a file and -c -load reads a
	// known-issues file (the !analyze page).
	"analyze": {{"xmf", rule{Host, "-xmf writes the analysis to a file on this machine"}},
		{"load", rule{Host, "-load reads a known-issues file of this machine"}}},
	// !chkimg -mmw writes a log file, -p searches a directory (the
	// !chkimg page).
	"chkimg": {{"mmw", rule{Host, "-mmw writes a log file on this machine"}},
		{"p", rule{Host, "-p searches a directory of this machine"}}},
	// !list -a appends arguments to the command it runs, which could
	// complete a refused name (!list -x ".she" -a "ll calc").
	"list": {{"a", rule{Indirect, "-a appends arguments to the command it runs, which could complete a refused name"}}},
}

// bangOption is one refused option of an extension command.
type bangOption struct {
	name string
	rule
}

// dispatchers are extension commands that run the command their first
// word names: SOS's !ext (its source: "executes managed extension
// commands") and !sos, as in dotnet-dump.
var dispatchers = map[string]bool{"ext": true, "sos": true}

// options records, for each option name of bangOptions found in the line,
// the last position where it stands.
type options map[string]int

// findOptions finds the options of bangOptions in s in one pass.
func findOptions(s string) options {
	opts := options{}
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '-' && s[i] != '/' {
			continue
		}
		// A one-letter option must start a word (c:\x-a is no -a); a
		// longer one may be glued to another (-v-xmf), in case the
		// extension splits its options at '-'.
		glued := i > 0 && isWord(s[i-1])
		k := i + 1
		for k < len(s) && isWord(s[k]) {
			k++
		}
		w := s[i+1 : k]
		for _, list := range bangOptions {
			for _, o := range list {
				if len(o.name) >= 3 && strings.HasPrefix(w, o.name) || w == o.name && !glued {
					opts[o.name] = i
				}
			}
		}
	}
	return opts
}

// bangCommand checks the extension command name, found at pos.
func bangCommand(pos int, name, word string, opts *options, h *hits) {
	if strings.HasPrefix(name, "for_each_") {
		h.add(pos, rule{Indirect, "runs a command with names from the target substituted into it"}, word)
	}
	if r, ok := bangCommands[name]; ok {
		h.add(pos, r, word)
	}
	for _, o := range bangOptions[name] {
		if at, ok := (*opts)[o.name]; ok && at > pos {
			h.add(pos, o.rule, word+" -"+o.name)
		}
	}
}

// dataModelWords reach the data model's command and file APIs
// (Debugger.Utility.Control.ExecuteCommand builds a command from strings;
// Debugger.Utility.FileSystem writes files) or the functions of loaded
// scripts. They are refused wherever they stand, not only after dx.
var dataModelWords = map[string]rule{
	"utility":               {Indirect, "reaches the data model's ExecuteCommand and FileSystem APIs"},
	"executecommand":        {Indirect, "runs a command built from strings"},
	"filesystem":            {Indirect, "reads and writes files through the data model"},
	"scripts":               {Indirect, "calls the functions of loaded scripts"},
	"scriptcontents":        {Indirect, "calls the functions of a loaded script"},
	"debuggerrootnamespace": {Indirect, "reaches the data model's root (Debugger.Utility, Debugger.Settings)"},
	"debuggervariables":     {Indirect, "reaches the data model's root (Debugger.Utility, Debugger.Settings)"},
}

// hit is one refused name found in the line.
type hit struct {
	pos   int
	class Class
	word  string
	why   string
}

// bang is one extension command (!full, !module.name).
type bang struct {
	full, name string
	// module is what full names before its last '.', "" for !name.
	module string
	// wide is the module a wider reading of the name gives, up to a
	// blank or ';' (!ext,evil.x: "ext,evil"), when it runs past full
	// and holds a '.'; else "".
	wide string
	// pos is where the '!' stands; start says whether it may start a
	// command there rather than end a symbol's module (app!Foo.Bar).
	pos   int
	start bool
}

// ownModules are the extension modules of the Debugging Tools for
// Windows themselves, without ".dll": the default search chain of the
// "Using Debugger Extension Commands" page (dbghelp, ext, exts, uext,
// kext, ntsdexts, kdexts), WOW64's wow64exts, SOS for .NET, and the trace
// and driver framework extensions whose host-reaching commands
// bangCommands refuses. !module.name loads module.dll with
// LoadLibrary(module) when it is not loaded yet, from an extension path
// that holds every PATH directory; so any other module is refused unless
// the operator names it (Policy.ExtensionModules).
var ownModules = map[string]bool{
	"dbghelp": true, "ext": true, "exts": true, "uext": true, "kext": true, "ntsdexts": true, "kdexts": true,
	"wow64exts": true, "sos": true, "wmitrace": true, "wdfkd": true, "rcdrkd": true,
}

// bangStartsCommand reports whether the '!' at i may start an extension
// command rather than end a symbol's module name (app!Foo.Bar, app*!x):
// it does not follow a word or a wildcard, or the word is the rest of a
// thread or process prefix (~*e!x, ~0s!x, ~0!x). A '!' after a
// wildcard alone (~*!x, * !x) is taken as a command: a false refusal
// costs a retry.
func bangStartsCommand(s string, i int) bool {
	k := i
	for k > 0 && isWord(s[k-1]) {
		k--
	}
	if k == i {
		// After a wildcard: a module pattern if a word stands before it.
		for k > 0 && (s[k-1] == '*' || s[k-1] == '?') {
			k--
		}
		return k == i || k == 0 || !isWord(s[k-1])
	}
	// A number is no module name: j1!x is j's condition 1, then !x. So
	// is j or z glued to one.
	if run := s[k:i]; isDigit(run[0]) || (run[0] == 'j' || run[0] == 'z') && len(run) > 1 && isDigit(run[1]) {
		return true
	}
	// After a thread or process number with or without its verb (~0!x,
	// ~*e!x, |0s!x) the command runs in that thread's context.
	return prefixContext(s, prevNonBlank(s, k))
}

type hits struct {
	list  []hit
	bangs []bang
	// interactive: an Interactive hit was found, which refuses the line
	// whatever else it holds; further words need not be judged for it.
	interactive bool
}

func (h *hits) add(pos int, r rule, word string) {
	h.list = append(h.list, hit{pos, r.class, word, r.why})
}

// all returns the hits in the order of the line.
func (h *hits) all() []hit {
	sort.SliceStable(h.list, func(i, j int) bool { return h.list[i].pos < h.list[j].pos })
	return h.list
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isWord(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_'
}

// prevNonBlank returns the index of the last non-blank byte before i, or
// -1.
func prevNonBlank(s string, i int) int {
	for i--; i >= 0 && isBlank(s[i]); i-- {
	}
	return i
}

// nextNonBlank returns the first non-blank byte at or after i, or 0.
func nextNonBlank(s string, i int) byte {
	for ; i < len(s) && isBlank(s[i]); i++ {
	}
	if i < len(s) {
		return s[i]
	}
	return 0
}

// bangEnd are the bytes that end an extension command's name. '!' is one
// of them, so that a run of them is read in linear time.
const bangEnd = " \t;{}()\"'`,=*?!"

// harmlessDot are meta-commands that begin with a refused name but only
// show something.
var harmlessDot = map[string]bool{"servers": true, "dumpdebug": true}

// dotCommand looks a meta-command name up. Where the dot may start a
// command (start), a name that begins with a refused one is refused too
// (.shell1, .dumpx): whether the engine reads .shellx as .shell x is not
// documented, so the check assumes it does. After a word (!sos.dumpheap,
// app!Foo.Create) only the exact name is refused.
func dotCommand(name string, start bool) (string, rule, bool) {
	if name == "" || harmlessDot[name] {
		return "", rule{}, false
	}
	if r, ok := dotCommands[name]; ok {
		return name, r, true
	}
	for n := len(name) - 1; n > 0 && start; n-- {
		if r, ok := dotCommands[name[:n]]; ok {
			return name[:n], r, true
		}
	}
	return "", rule{}, false
}

// scan finds every refused name in s, a lower-case ASCII line, and in
// the lines its escapes may decode to.
func scan(s string) hits {
	var h hits
	scanLine(s, &h)
	if strings.IndexByte(s, '\\') >= 0 {
		for _, maxHex := range []int{2, len(s)} {
			if d := unescape(s, maxHex); d != s {
				scanLine(d, &h)
			}
		}
	}
	return h
}

// unescape decodes the C escapes of s as dbgeng may decode them in a
// quoted command string. The breakpoint commands (bp, bu, bm, bs, bsc)
// take "standard C control characters", and extensions such as
// !wmitrace.searchpath read \\ as one backslash, so what runs is the
// decoded string: "\x2eshell" is .shell and "\x24{x}" an alias. The
// decoded line is checked beside the line itself, wherever the escape
// stands, since which commands decode which escapes is not documented:
//   - \xHH with at most maxHex digits (C reads them all, a parser may stop
//     at two; the caller tries both), \uHHHH, and up to three octal
//     digits give the character of their low byte;
//   - \n, \r, \t and the other control escapes, and any character that is
//     not printable ASCII, give ';', as a line break or control character
//     may end a command;
//   - a backslash before any other character is dropped (\h is h).
func unescape(s string, maxHex int) string {
	var b strings.Builder
	b.Grow(len(s))
	put := func(v int) {
		c := byte(v)
		switch {
		case c >= 'A' && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		case c >= ' ' && c <= '~':
			b.WriteByte(c)
		default:
			b.WriteByte(';')
		}
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; {
		case c == 'x' || c == 'u':
			n := maxHex
			if c == 'u' {
				n = 4
			}
			v, j := 0, i+1
			for ; j < len(s) && j-i-1 < n && hexValue(s[j]) >= 0; j++ {
				v = (v<<4 | hexValue(s[j])) & 0xff
			}
			if j == i+1 {
				put(int(c)) // no digits: \x is x
				continue
			}
			put(v)
			i = j - 1
		case '0' <= c && c <= '7':
			v, j := 0, i
			for ; j < len(s) && j < i+3 && '0' <= s[j] && s[j] <= '7'; j++ {
				v = v<<3 | int(s[j]-'0')
			}
			put(v)
			i = j - 1
		case strings.IndexByte("abfnrtv", c) >= 0:
			b.WriteByte(';')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// hexValue returns the value of the hex digit c (lower case), or -1.
func hexValue(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

// scanLine adds to h every refused name in s.
func scanLine(s string, h *hits) {
	scanConstructs(s, h)
	dmlPrintf(s, h)
	opts := findOptions(s)
	// runEnd and runDot are the end of the run of bytes (up to a blank or
	// ';') that the last extension name read stood in, and its last '.'.
	runEnd, runDot := -1, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.':
			j := i + 1
			for j < len(s) && isBlank(s[j]) {
				j++
			}
			k := j
			for k < len(s) && isWord(s[k]) {
				k++
			}
			if name, r, ok := dotCommand(s[j:k], dotStartsCommand(s, i)); ok {
				h.add(i, r, "."+name)
			}
		case '!':
			j := i + 1
			for j < len(s) && isBlank(s[j]) {
				j++
			}
			k := j
			for k < len(s) && !strings.ContainsRune(bangEnd, rune(s[k])) {
				k++
			}
			full := s[j:k]
			module, name := "", full
			if d := strings.LastIndexByte(full, '.'); d >= 0 {
				module, name = full[:d], full[d+1:]
			}
			start := bangStartsCommand(s, i)
			// Where dbgeng ends a module name is not documented: the
			// name may run on past the bytes that end it here
			// (!ext,evil.x may load "ext,evil.dll"), up to a blank or
			// ';'.
			// The end and the last '.' of the run are found once per
			// run, so that a run of '!' is read in linear time.
			if runEnd < k {
				runEnd, runDot = k, -1
				for runEnd < len(s) && !isBlank(s[runEnd]) && s[runEnd] != ';' {
					if s[runEnd] == '.' {
						runDot = runEnd
					}
					runEnd++
				}
			}
			wide := ""
			if runEnd > k && runDot >= k {
				wide = s[j:runDot]
			}
			h.bangs = append(h.bangs, bang{full: full, name: name, module: module, wide: wide, pos: i, start: start})
			// A quoted name may be a module path with blanks ("c:\program
			// files\x".cmd); whether dbgeng reads quotes there is not
			// documented, and the quoted text is no name this check can
			// compare.
			// !! may be read as a shell escape, as older console
			// debuggers had one; the documentation says nothing either
			// way, so it is refused as .shell is.
			if full == "" && start && j < len(s) && s[j] == '!' {
				h.add(i, rule{Host, "may run a command shell on this machine (a shell escape of older console debuggers, as .shell)"}, "!!")
			}
			if full == "" && start && j < len(s) && (s[j] == '"' || s[j] == '\'') {
				h.add(i, rule{Host, "names an extension in quotes, which may be a DLL path"}, "!"+s[j:j+1])
			}
			word := "!" + full
			if strings.ContainsAny(module, `\/:`) {
				h.add(i, rule{Host, "loads an extension DLL from a path"}, word)
			}
			if r, ok := bangModules[module]; ok {
				h.add(i, r, word)
			}
			bangCommand(i, name, word, &opts, h)
			// A dispatcher runs the command its first word names:
			// !ext logopen f is !logopen f.
			for dispatchers[name] {
				j = k
				for j < len(s) && (isBlank(s[j]) || s[j] == '"' || s[j] == '\'') {
					j++ // !ext "logopen" f may name it in quotes
				}
				k = j
				for k < len(s) && !strings.ContainsRune(bangEnd, rune(s[k])) {
					k++
				}
				if name = s[j:k]; name == "" {
					break
				}
				// Only the last name joins the word: a chain of
				// dispatchers (!ext ext ext ...) stays linear.
				bangCommand(i, name, "!"+full+" "+name, &opts, h)
			}
		}
	}
	for a := 0; a < len(s); {
		if !isWord(s[a]) {
			a++
			continue
		}
		b := a
		for b < len(s) && isWord(s[b]) {
			b++
		}
		scanRun(s, a, b, h)
		interactiveRun(s, a, b, h)
		a = b
	}
}

// enterCommands are the e commands (enter values): given an address but
// no values, each prompts for the values on the lines that follow.
var enterCommands = map[string]bool{
	"e": true, "ea": true, "eb": true, "ed": true, "ef": true, "ep": true, "eq": true,
	"eu": true, "ew": true, "eza": true, "ezu": true,
}

// interactiveRun refuses, in the word s[a:b], a command that reads its
// input from the lines after it: a (assemble), which always does, and an
// e command without values. Only where a command may start
// (commandStart), or after a thread or process prefix (~0 a, ~*e eb x,
// ~0eeb x); "a" is too common a word to refuse elsewhere.
func interactiveRun(s string, a, b int, h *hits) {
	if h.interactive {
		return
	}
	w := s[a:b]
	try := func(pos int, w string) {
		rest := s[b:]
		switch {
		case w == "a":
			h.add(pos, rule{Interactive, "(assemble) reads the instructions to assemble from the lines that follow, up to an empty one"}, w)
			h.interactive = true
		case enterCommands[w] && !hasValues(rest):
			h.add(pos, rule{Interactive, "without values prompts for them on the lines that follow"}, w)
			h.interactive = true
		}
	}
	if prefixContext(s, prevNonBlank(s, a)) {
		// After a thread or process prefix (~0, ~*, ~~[..], |1) an e is
		// the verb that runs the command after it (~0 eq is ~0 e q), and
		// a number may be glued on (~0eeb x, ~0n12a): the command is
		// tried after the start and after each digit, past a verb e.
		for p := 0; p < len(w); p++ {
			if p > 0 && !isDigit(w[p-1]) {
				continue
			}
			c, at := w[p:], a+p
			if c[0] == 'e' {
				c, at = c[1:], at+1
			}
			if c != "" {
				try(at, c)
			}
		}
		return
	}
	if commandStart(s, a) {
		try(a, w)
	}
}

// commandStart reports whether a command may start at s[a], a word not
// right after a thread or process prefix: at the start, after ';', '{',
// '}', a quote (a command string of bp, j or .if), or after a prefix's
// verb standing alone (~* e eb x).
func commandStart(s string, a int) bool {
	p := prevNonBlank(s, a)
	switch {
	case p < 0 || strings.IndexByte(";{}", s[p]) >= 0:
		return true
	case s[p] == '"' || s[p] == '\'':
		return takesCommandString(s, p)
	case s[p] == 'e' && (p == 0 || !isWord(s[p-1])):
		return prefixContext(s, prevNonBlank(s, p))
	}
	return false
}

// takesCommandString reports whether the quote at s[p] may open a
// command string: the command it stands in is a breakpoint command (bp,
// bu, bm, ba, bs, bsc: bp x "a"), j or z (j c 'eb x'), an sx command
// (sxe -c "a" ld), or !list (-x "cmd"). Elsewhere a quoted string is text
// (.echo "a", ea 0x1000 "a;b", s -a 0 l9 "a").
func takesCommandString(s string, p int) bool {
	start := strings.LastIndexAny(s[:p], ";{}") + 1
	seg := strings.TrimLeft(s[start:p], " \t~|*#.[]0123456789")
	word := func() string {
		k := 0
		for k < len(seg) && (isWord(seg[k]) || k == 0 && seg[k] == '!') {
			k++
		}
		return seg[:k]
	}
	w := word()
	if w == "e" || len(w) > 1 && w[0] == 'e' && !enterCommands[w] {
		// A thread prefix's verb: ~0 e bp x "a", ~*ebp x "a".
		seg = strings.TrimLeft(seg[1:], " \t")
		w = word()
	}
	switch {
	case w == "j" || w == "z" || w == "!list" || strings.HasPrefix(w, "sx"):
		return true
	case len(w) >= 2 && w[0] == 'b' && strings.IndexByte("pumas", w[1]) >= 0:
		return true
	}
	return false
}

// hasValues reports whether rest, what follows an e command, holds an
// address and at least one value before the command ends (';' outside
// quotes). The address is an expression: blanks inside parentheses and
// brackets, and around operators, are taken to be inside it (eb @rsp + 8
// is an address alone), so a doubt is decided as "no values". Only the
// first maxEnterScan bytes are read (no address runs longer), so that a
// long line costs a bounded scan per e command in it.
func hasValues(rest string) bool {
	if len(rest) > maxEnterScan {
		rest = rest[:maxEnterScan]
	}
	var b strings.Builder
	depth, quote := 0, byte(0)
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			b.WriteByte('x')
			continue
		case c == '"' || c == '\'':
			quote = c
			b.WriteByte('x')
			continue
		case c == ';' && depth == 0:
			i = len(rest)
			continue
		case c == '(' || c == '[':
			depth++
		case c == ')' || c == ']':
			depth--
		case isBlank(c):
			if depth > 0 || operatorNear(rest, i) {
				continue
			}
		}
		b.WriteByte(c)
	}
	return len(strings.Fields(b.String())) >= 2
}

// maxEnterScan bounds what hasValues reads.
const maxEnterScan = 256

// operatorNear reports whether the blank at rest[i] stands beside an
// operator, across any further blanks.
func operatorNear(rest string, i int) bool {
	const ops = "+-*/%&|^<>=!~"
	if p := prevNonBlank(rest, i); p >= 0 && strings.IndexByte(ops, rest[p]) >= 0 {
		return true
	}
	n := nextNonBlank(rest, i)
	return n != 0 && strings.IndexByte(ops, n) >= 0
}

// scanConstructs finds the constructs that are not words: alias
// expansion, fixed-name aliases, script files, network paths.
func scanConstructs(s string, h *hits) {
	// Blanks are dropped so that "$ {x}" or "$$ >a<" are seen as well.
	t := strings.NewReplacer(" ", "", "\t", "").Replace(s)
	for _, c := range []struct {
		sub  string
		word string
		r    rule
	}{
		{"${", "${...}", rule{Indirect, "expands an alias"}},
		{"$.u", "r $.u0", rule{Indirect, "defines a fixed-name alias"}},
		{"$<", "$$< (script file)", rule{Indirect, "runs the commands of a script file"}},
		{"$>", "$$>< (script file)", rule{Indirect, "runs the commands of a script file"}},
		{">a<", "$$>a< (script file)", rule{Indirect, "runs the commands of a script file"}},
		// .printf /D writes DML; a link's command, filled from the
		// target's memory (%ma) or spelled with escapes, runs when the
		// user clicks it in WinDbg.
		{"<link", "<link> (DML)", rule{Indirect, "writes a link that runs a command when clicked"}},
		{"<altlink", "<altlink> (DML)", rule{Indirect, "writes a link that runs a command when clicked"}},
		{"<exec", "<exec> (DML)", rule{Indirect, "writes a link that runs a command when clicked"}},
	} {
		if i := strings.Index(t, c.sub); i >= 0 {
			h.add(-1, c.r, c.word)
		}
	}
	for i := 0; i+2 < len(t); i++ {
		if t[i] == '$' && t[i+1] == 'u' && '0' <= t[i+2] && t[i+2] <= '9' {
			h.add(-1, rule{Indirect, "expands a fixed-name alias"}, t[i:i+3])
			break
		}
	}
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '\\' || s[i] == '/') && (s[i+1] == '\\' || s[i+1] == '/') {
			h.add(i, rule{Host, "names a network path (opening it sends this machine's credentials to that host)"}, s[i:i+2])
			break
		}
	}
	for _, sub := range []string{`\??\`, `\device\`, `\global??`} {
		if i := strings.Index(s, sub); i >= 0 {
			h.add(i, rule{Host, "names an NT path, which can reach the network"}, sub)
		}
	}
}

// scanRun checks the word s[a:b]: as a command of letters (q, as, lsf,
// lse), after a thread or process prefix (~0eq), and as a data model
// word.
func scanRun(s string, a, b int, h *hits) {
	r := s[a:b]
	if rl, ok := dataModelWords[r]; ok {
		h.add(a, rl, r)
	}
	prev := prevNonBlank(s, a)
	if symbolPattern(s, a) {
		return // a symbol (app!q, *!*q*) or an extension command, seen above
	}
	// The root is refused wherever it stands, not only before '.' or '[':
	// held in a variable (dx @$x = Debugger) or in parentheses
	// ((Debugger)["Uti" + "lity"]), it reaches every member by a string
	// the check cannot read.
	if r == "debugger" && !sessionsOnly(s[b:]) {
		h.add(a, rule{Indirect, "(the data model's root) reaches Debugger.Utility and Debugger.Settings; use @$cursession, @$curprocess or Debugger.Sessions"}, r)
	}
	// After '.' or '->' a word is a member or a meta-command's name,
	// unless the '.' is the current thread or process of a prefix (~.q,
	// |.q). No command starts with '-' or '>', so ->queue is a field.
	if prev < 0 || s[prev] != '.' && !(s[prev] == '>' && prev > 0 && s[prev-1] == '-') || currentMarker(s, prev) {
		letterCommand(r, a, s[b:], h)
	}
	if !prefixContext(s, prev) {
		// j1q: j's condition is an expression, which the evaluator may
		// end at the first character a number cannot hold, so a command
		// may follow a digit with nothing between.
		for p := 1; p < len(r); p++ {
			if isDigit(r[p-1]) && 'a' <= r[p] && r[p] <= 'z' {
				letterCommand(r[p:], a+p, s[b:], h)
			}
		}
		return
	}
	// ~0eq, ~*eq, ~~[0x1d8]eq, ~0n12eq, |1sq, ~0q: the thread or process
	// number, the e or s verb if any (~0k runs k for thread 0), and the
	// command are glued together. The number may be hex (~0xa) or carry a
	// radix prefix (0n, 0t, 0y), so every position of the word is taken
	// as a possible start of the command.
	for p := 1; p < len(r); p++ {
		letterCommand(r[p:], a+p, s[b:], h)
	}
}

// currentMarker reports whether the '.' at i is the current thread or
// process of a prefix (~., |., ||.) rather than the dot of a meta-command
// or a member.
func currentMarker(s string, i int) bool {
	p := prevNonBlank(s, i)
	return p >= 0 && (s[p] == '~' || s[p] == '|')
}

// dotStartsCommand reports whether the '.' at i may start a command: it
// does not follow a word, or the word is a number or the rest of a thread
// or process prefix (~*e.shell, ~0e.shell, ~0n12e.shell, j1.shell).
func dotStartsCommand(s string, i int) bool {
	if i == 0 || !isWord(s[i-1]) {
		return true
	}
	k := i
	for k > 0 && isWord(s[k-1]) {
		k--
	}
	// A number (j1.shellx: j's condition, then the command) or j or z
	// glued to one, and the rest of a thread or process prefix with or
	// without its verb (~0e.shellx, ~0.shellx), may end right before a
	// command.
	run := s[k:i]
	// After '!' the word is a module name, even one of digits (!0.hh is
	// command hh of module 0, as !ext.hh is).
	if p := prevNonBlank(s, k); p >= 0 && s[p] == '!' {
		return false
	}
	if isDigit(run[0]) || (run[0] == 'j' || run[0] == 'z') && len(run) > 1 && isDigit(run[1]) {
		return true
	}
	return prefixContext(s, prevNonBlank(s, k))
}

// prefixContext reports whether a word after s[prev] may begin with the
// rest of a thread or process prefix (~...e, |...s).
func prefixContext(s string, prev int) bool {
	if prev < 0 {
		return false
	}
	switch c := s[prev]; {
	case strings.IndexByte("~|]*#", c) >= 0:
		return true
	case c == '.':
		p := prevNonBlank(s, prev)
		return p >= 0 && (s[p] == '~' || s[p] == '|')
	case isWord(c):
		// ~0 eq, ~0n12 eq: a number, then blanks, then the verb.
		k := prev
		for k >= 0 && isWord(s[k]) {
			k--
		}
		p := prevNonBlank(s, k+1)
		return p >= 0 && (s[p] == '~' || s[p] == '|')
	}
	return false
}

// letterCommand checks a word that may stand where a command starts.
// Regular commands are parsed by their first letters with anything glued
// to them (qd, kb5, db@rsp), so a prefix is enough.
func letterCommand(w string, pos int, rest string, h *hits) {
	next := nextNonBlank(rest, 0)
	switch {
	case w == "q" || w == "qq" || w == "qd":
		h.add(pos, rule{SessionEnd, "ends the debugging session"}, w)
	case w[0] == 'q':
		if len(w) >= 3 && next == '(' {
			return // a MASM function such as qwo(...)
		}
		h.add(pos, rule{SessionEnd, "starts with q, which the debugger may read as q, qq or qd (end the session); a symbol can be named with its module (app!name)"}, w)
	case w == "as":
		h.add(pos, rule{Indirect, "defines an alias"}, w)
	case strings.HasPrefix(w, "as"):
		h.add(pos, rule{Indirect, "starts with as, which the debugger may read as as or aS (define an alias); a symbol can be named with its module (app!name)"}, w)
	case strings.HasPrefix(w, "lsf"):
		h.add(pos, rule{Host, "loads a source file of this machine"}, w)
	case strings.HasPrefix(w, "lse"):
		h.add(pos, rule{Host, "starts a source editor on this machine"}, w)
	case strings.HasPrefix(w, "ls"):
		// ls, lsa, lsc, lsp: ls and lsa load a source file by the name the
		// symbol file gives, and a source path holding srv* (set by the
		// operator, or in _NT_SOURCE_PATH) fetches it by running the
		// command the symbol file names (SrcSrv). Which of them load a
		// file is not worth telling apart.
		h.add(pos, rule{Host, "is a source listing command (ls and lsa load a source file, which a source path with srv* fetches by running a command the symbol file names: SrcSrv)"}, w)
	case w == "l" && sourceOptions(rest):
		h.add(pos, rule{Host, "turns on source display or source mode, in which stepping and scope changes load source files, which a source path with srv* fetches by running a command the symbol file names (SrcSrv)"}, "l+")
	}
}

// sourceOptions reports whether rest, what follows the command l, turns
// source options on: l+s, l+t, l+o, l+l, l+*. A number (db x l+10, a
// length) does not.
func sourceOptions(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	if !strings.HasPrefix(rest, "+") {
		return false
	}
	rest = strings.TrimLeft(rest[1:], " \t")
	return rest != "" && (rest[0] == '*' || 'a' <= rest[0] && rest[0] <= 'z')
}

// sessionsOnly reports whether rest, what follows the word Debugger, is
// the member Sessions, the one part of the root the check lets through.
func sessionsOnly(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	return strings.HasPrefix(rest, ".sessions") && (len(rest) == len(".sessions") || !isWord(rest[len(".sessions")]))
}

// symbolPattern reports whether the word at a follows '!', wildcards
// aside: the symbol part of module!symbol or of a pattern such as *!*q*.
func symbolPattern(s string, a int) bool {
	i := a - 1
	for i >= 0 && (s[i] == '*' || s[i] == '?') {
		i--
	}
	i = prevNonBlank(s, i+1)
	return i >= 0 && s[i] == '!'
}
