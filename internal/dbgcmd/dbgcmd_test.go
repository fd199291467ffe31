package dbgcmd

import (
	"errors"
	"strings"
	"testing"
)

// allowed are ordinary commands that no policy refuses.
var allowed = []string{
	"k", "kb 20", "lm", "lmv m ntdll", "r", "r @rax", "r $t0 = 1", "!analyze -v", "dt app!Foo", "dt ntdll!_PEB @$peb",
	"dv", "db @rsp L40", "dq @rsp", "? qwo(@rsp)", "u @rip", "x app!*", "~*k", "~0s", "|0s", "~*e k", "~2e r",
	"dx @$curprocess", "dx @$curprocess.Modules", "dx -r1 @$curthread.Stack.Frames", "dx Debugger.Sessions",
	"dx Debugger.Sessions[0].Processes", "dx @$cursession.Processes.Where(p => p.Id == 4)",
	`bp app!main ".echo hit; k; g"`, "bp app!main", "bl", "bc *", "g", "p", "t", "gu",
	".echo hello", ".formats 0x10", ".frame 2", ".cxr", ".ecxr", ".reload", ".lastevent", ".time", ".printf \"%p\\n\", @rsp",
	"!peb", "!teb", "!heap -s", "!address -summary", "!handle", "!locks", "!runaway", "!mcpfoo", "!ext.error 5",
	"k; r", "\tk", "$$ a comment; k", ".if (1) { k } .else { r }", "j (1) 'k' ; 'r'", ".block { k }",
	"ad *", "al", ".noshell", ".logclose", ".chain", "dx @$t0 = 5", "dt app!Config Settings",
	"dx ((app!Foo*)@rcx)->queue", "?? ((app!Foo*)@rcx)->asize", "dd @rsp", "du @rcx", "uf app!main", ".exr -1", "!error 5", "dx @$curthread", "x mod!sym*",
	"!analyze -v -hang", "!analyze -show 0x50", "!chkimg ntdll", "!chkimg -d -v ntdll", `!list -t _LIST_ENTRY.Flink -x "dt app!Foo @$extret" 0x1000`,
	"!sos.ext dumpheap -stat", "!ext clrstack", "!ext.heap -s", `.printf /D "<b>bold</b>\n"`,
	".printf /D \"<b>%%</b>\\n\"", ".printf \"%ma\\n\", @rsp", ".printf /oe \"%c\", 0x41", "lm m sql*", "sxe ld app", "ba r4 @rsp", "s -a 0 L100 \"abc\"", ".servers", ".dumpdebug", "x *!*assert*", ".scriptlist", "!sos.DumpHeap -stat", "!sos.dumpobj 0x1", "!SOS.DumpStackObjects",
	// A symbol's module separator, not an extension command: the '!' is
	// glued to the module name.
	".echo \"hi!\"", "dx app!g_config.member", "dt app!Foo.Bar", "?? app!g.x", "x app*!g.x", "bp app!Foo.Bar",
	// The debugger's own extension modules.
	"!ext.heap -s", "!exts.handle", "!uext.vadump", "!kext.x", "!ntsdexts.locks", "!kdexts.process", "!dbghelp.sym noisy",
	"!wow64exts.sw", "!wmitrace.strdump", "!wdfkd.wdfdriverinfo", "!rcdrkd.rcdrcrashdump x",
	// A length after l, and an extension command whose arguments hold
	// dots.
	"db @rsp l+10", "dd @rsp l 0x20", "l-s", "!ext.heap -p -a 0x1.0", "!sos.dumpobj 0x1; !ext.heap", ".srcnoisy 1", "kp",
}

func TestAllowed(t *testing.T) {
	for _, c := range allowed {
		if err := (Policy{}).Check(c); err != nil {
			t.Errorf("%q refused: %v", c, err)
		}
	}
}

// bypasses are command lines that reach a refused class. The table notes,
// after each, whether the extension's check before this package (ext)
// accepted it; the cdb server's check (one line, no control characters)
// accepted every one of them.
var bypasses = []struct {
	cmd   string
	class Class
}{
	// User-named aliases are replaced where they stand as words.
	{"as x .shell", Indirect},                         // ext: refused (.shell), but as x is its own bypass:
	{"as x .she", Indirect},                           // ext: accepted
	{"aS x q", Indirect},                              // ext: refused (q)
	{"as /c x .echo .kill", Indirect},                 // ext: refused (.kill)
	{"aS /f x c:\\cmds.txt", Indirect},                // ext: accepted
	{"as /e x COMSPEC", Indirect},                     // ext: accepted
	{"aS/x x 1", Indirect},                            // ext: accepted
	{"x calc; as y z", Indirect},                      // ext: accepted
	{"~*e as x y", Indirect},                          // ext: accepted
	{"r $.u0 = .sh", Indirect},                        // ext: accepted
	{"r $.U1=ell", Indirect},                          // ext: accepted
	{"$u0$u1 calc", Indirect},                         // ext: accepted
	{"$U9", Indirect},                                 // ext: accepted
	{"${x}", Indirect},                                // ext: refused
	{"$ {x}", Indirect},                               // ext: accepted
	{"${/v:x}", Indirect},                             // ext: refused
	{".foreach (t {.echo .sh}) { t }", Indirect},      // ext: accepted
	{".foreach /f (t \"c:\\x.txt\") { t }", Indirect}, // ext: accepted
	{".foreach/s (t \"k\") { t }", Indirect},          // ext: accepted
	{"!for_each_module .echo @#ModuleName", Indirect}, // ext: accepted
	{"!ext.for_each_frame .echo x", Indirect},         // ext: accepted
	{".ocommand magic", Indirect},                     // ext: accepted
	{`dx Debugger.Utility.Control.ExecuteCommand(".sh" + "ell calc")`, Indirect}, // ext: accepted
	{"dx @$x = Debugger; dx @$x.Utility", Indirect},                              // ext: accepted
	{`dx Debugger.Utility.FileSystem.CreateFile("c:\\x")`, Indirect},             // ext: accepted
	{"dx @$debuggerRootNamespace.Utility", Indirect},                             // ext: accepted
	{"dx @$scripts.x.Contents.run()", Indirect},                                  // ext: accepted
	{"dx @$scriptContents.f()", Indirect},                                        // ext: accepted
	{"dx Debugger.State", Indirect},                                              // ext: accepted
	{"dx -r0 Debugger [\"Utility\"]", Indirect},                                  // ext: accepted
	{".scriptload c:\\x.js", Indirect},                                           // ext: accepted
	{".scriptrun c:\\x.js", Indirect},                                            // ext: accepted
	{".scriptunload x.js", Indirect},                                             // ext: accepted
	{"$$<c:\\s.txt", Indirect},                                                   // ext: refused
	{"$$ >a<c:\\s.txt", Indirect},                                                // ext: accepted
	{"$ $<c:\\s.txt", Indirect},                                                  // ext: refused

	// Session end, hidden from the old word split.
	{"~~[0x1d8]eq", SessionEnd},  // ext: accepted
	{"~[@$t0]eq", SessionEnd},    // ext: accepted
	{"~~[1c]e q", SessionEnd},    // ext: refused
	{"~0 eq", SessionEnd},        // ext: accepted
	{"~. eqd", SessionEnd},       // ext: accepted
	{"k;qq", SessionEnd},         // ext: refused
	{"quit", SessionEnd},         // ext: accepted
	{"qdx", SessionEnd},          // ext: accepted
	{"k;q$$", SessionEnd},        // ext: accepted
	{".kill", SessionEnd},        // ext: refused
	{". kill", SessionEnd},       // ext: accepted
	{"~*e.detach", SessionEnd},   // ext: refused
	{".remote_exit", SessionEnd}, // ext: accepted
	{".kill1", SessionEnd},       // ext: accepted
	{".shellx calc", Host},       // ext: accepted
	{"~0e.shellx calc", Host},    // ext: accepted
	{"k;.dumpx c:\\x", Host},     // ext: accepted
	{"|0e.restart", SessionEnd},  // ext: refused

	// The host: programs, code, files, paths, the network.
	{".shell calc", Host},                                        // ext: refused
	{".shell\"calc\"", Host},                                     // ext: refused
	{". shell calc", Host},                                       // ext: accepted
	{".SHELL-ci k findstr x", Host},                              // ext: accepted
	{"~*e.shell calc", Host},                                     // ext: refused
	{".create calc", Host},                                       // ext: refused
	{".createdir c:\\", Host},                                    // ext: accepted
	{".attach 0n4", Host},                                        // ext: refused (as session end)
	{".opendump c:\\x.dmp", Host},                                // ext: refused (as session end)
	{".dbgdbg", Host},                                            // ext: accepted
	{".hh", Host},                                                // ext: accepted
	{".tlist", Host},                                             // ext: accepted
	{".load c:\\x.dll", Host},                                    // ext: refused (as session end)
	{".loadby sos clr", Host},                                    // ext: accepted
	{".cordll -lp c:\\x", Host},                                  // ext: accepted
	{".setdll x", Host},                                          // ext: accepted
	{"!c:\\tmp\\x.cmd", Host},                                    // ext: accepted
	{"!load x", Host},                                            // ext: accepted
	{"!pykd.py c:\\x.py", Host},                                  // ext: accepted
	{"!py c:\\x.py", Host},                                       // ext: accepted
	{"!net_send a b c d", Host},                                  // ext: accepted
	{"!homedir c:\\x", Host},                                     // ext: accepted
	{"!logexts.loge", Host},                                      // ext: accepted
	{".server tcp:port=5005", Host},                              // ext: refused
	{".remote x", Host},                                          // ext: accepted
	{".netuse /s x", Host},                                       // ext: accepted
	{".send_file c:\\x y", Host},                                 // ext: accepted
	{".netsyms yes", Host},                                       // ext: accepted
	{".logopen c:\\x.bat", Host},                                 // ext: accepted
	{".logappend c:\\x.bat", Host},                               // ext: accepted
	{".writemem c:\\x.exe @rsp L100", Host},                      // ext: accepted
	{".dump /ma c:\\x.dmp", Host},                                // ext: accepted
	{".dumpcab -a c:\\x.cab", Host},                              // ext: accepted
	{".copysym c:\\x", Host},                                     // ext: accepted
	{".readmem c:\\secret @rsp L100", Host},                      // ext: accepted
	{"lsf c:\\users\\x\\.ssh\\id_rsa", Host},                     // ext: accepted
	{"lsf- x", Host},                                             // ext: accepted
	{"lse", Host},                                                // ext: accepted
	{".dml_start c:\\x.txt", Host},                               // ext: accepted
	{".rrestart", Host},                                          // ext: accepted
	{"!for_each_process .echo", Indirect},                        // ext: accepted
	{".open c:\\x.c", Host},                                      // ext: accepted
	{".kdfiles c:\\x", Host},                                     // ext: accepted
	{".cmdtree c:\\x", Host},                                     // ext: accepted
	{".nvload c:\\x.natvis", Host},                               // ext: accepted
	{".settings load c:\\x.xml", Host},                           // ext: accepted
	{".settings set Extensions.ExtensionSearchPath=c:\\x", Host}, // ext: accepted
	{"dx Debugger.Settings", Indirect},                           // ext: accepted
	{".sympath \\\\evil\\share", Host},                           // ext: accepted
	{".sympath+c:\\x", Host},                                     // ext: accepted
	{".symfix", Host},                                            // ext: accepted
	{".srcpath+ x", Host},                                        // ext: accepted
	{".lsrcpath x", Host},                                        // ext: accepted
	{".srcfix", Host},                                            // ext: accepted
	{".exepath x", Host},                                         // ext: accepted
	{".extpath c:\\x", Host},                                     // ext: accepted
	{"!chksym app \\\\evil\\share\\x.pdb", Host},                 // ext: accepted
	{"ld app /f //evil/share/x.dll", Host},                       // ext: accepted
	{"ld app /f \\??\\UNC\\evil\\x.dll", Host},                   // ext: accepted
	{"ld app /f \\Device\\Mup\\evil\\x.dll", Host},               // ext: accepted
	{"bp app!main \".logopen c:\\x\"", Host},                     // ext: accepted
	{"j 1 '.shell calc'", Host},                                  // ext: refused

	// Found in review; the shared check of the time accepted each one.
	// ~. and |. name the current thread and process; the command after
	// them is run with that prefix, so the '.' is no meta-command's dot.
	{"~.q", SessionEnd},
	{"~. qd", SessionEnd},
	{"|.q", SessionEnd},
	{"~.as x .she", Indirect},
	{"~.lsf c:\\x", Host},
	// A thread number may carry a radix prefix (0n decimal), so the verb
	// is not the first non-hex letter of the word.
	{"~0n12eq", SessionEnd},
	{"~0n1 eq", SessionEnd},
	{"~0n1e.shellx calc", Host},
	// The data model's root held in a variable or parentheses reaches any
	// member by an indexer with a computed string.
	{"dx @$x = Debugger", Indirect},
	{`dx (Debugger)["Uti" + "lity"]["Con" + "trol"]["Execute" + "Command"](".sh" + "ell calc")`, Indirect},
	{"dx (Debugger).State", Indirect},
	{"dx Debugger/**/.State", Indirect},
	// Breakpoint command strings take C escapes (the bs and bsc pages:
	// "standard C control characters"); the command that runs is the
	// decoded one.
	{`bp app!main "\x2eshell calc"`, Host},
	{`bp app!main "\056shell calc"`, Host},
	{`bp app!main "\x002eshell calc"`, Host},
	{`bp app!main "\u002eload x"`, Host},
	{`bs 0 ".s\hell calc"`, Host},
	{`bp app!main "k\nq"`, SessionEnd},
	{`bp app!main "\161"`, SessionEnd},
	{`bp app!main "\x24{x}"`, Indirect},
	{`bu app!main "\x61s x .she"`, Indirect},
	// Options of allowed extension commands that reach the host or build
	// a command (the !analyze, !chkimg and !list pages).
	{`!analyze -v -xml -xmf c:\x.xml`, Host},
	{`!analyze -v /xmfc:\x.xml`, Host},
	{`!analyze -c -load c:\ki.xml`, Host},
	{`!analyze -v-xmf c:\x.xml`, Host},
	{`!ext.analyze -c -LOAD c:\ki.xml`, Host},
	{`!chkimg -mmw c:\log.txt 1 ntdll`, Host},
	{`!chkimg -p c:\x ntdll`, Host},
	{`!list -t _LIST_ENTRY.Flink -x ".sh" -a "ell calc" 0x1000`, Indirect},
	// SOS's !ext runs the SOS command its first word names (its source:
	// "executes managed extension commands"); SOS's own logopen writes a
	// file and loadsymbols downloads.
	{`!sos.ext savemodule 1 c:\x`, Host},
	{"!ext setsymbolserver -ms", Host},
	{`!ext  ext logopen c:\x`, Host},
	{`!logopen c:\x`, Host},
	{"!sos loadsymbols", Host},
	{"!ext for_each_module k", Indirect},
	{`!ext "logopen" c:\x`, Host},
	// The host's event log, and trace extensions' files and paths.
	{`!evlog backup -f c:\x`, Host},
	{"!evlog clear", Host},
	{`!wmitrace.logsave 1 c:\x.etl`, Host},
	{`!wmitrace.searchpath + c:\x`, Host},
	{`!wmitrace.tmffile c:\x.tmf`, Host},
	{`!wdfkd.wdflogsave x c:\x`, Host},
	{"!rcdrkd.rcdrlogsave x", Host},
	// DML links run their command when clicked; .printf fills it from
	// the target's memory, where the check cannot see it.
	{`.printf /D "<link cmd=\"%ma\">details</link>", @rsp`, Indirect},
	{`.printf /D "< exec cmd=\"%ma\">x</exec>", @rsp`, Indirect},
	{`.printf /D "<altlink name=\"x\" cmd=\"%ma\"/>", @rsp`, Indirect},

	// Found in the hostile review: .printf /D writes its output as DML
	// (the .printf page), and its conversions put text that is not on the
	// line into that DML: %c a character from a number, %ma and %mu a
	// string from the target's memory, %y a symbol name. The tag and the
	// link's command need not appear on the line at all.
	{`.printf /D "%clink cmd=\".sh%cll calc\">x</link>", 0x3c, 0x65`, Indirect},
	{`.printf /D "%ma", @rsp`, Indirect},
	{`.printf/d "%mu", @rsp`, Indirect},
	{`. printf /D "x%y", @rip`, Indirect},
	{`bp app!main ".printf /D \"%ma\", @rcx"`, Indirect},
	{`.printf /D "\x25c", 0x3c`, Indirect},
	// ext.dll's !elog_str writes a string to this machine's event log (the
	// !elog_str page), as !evlog does.
	{"!elog_str hello", Host},
	{"!ext.elog_str hello", Host},

	// !module.command loads module.dll with LoadLibrary(module) when it
	// is not loaded yet (the "Using Debugger Extension Commands" page),
	// from the extension path, which holds every PATH directory: any DLL
	// a third party installed or another tool planted there. Only the
	// debugger's own modules and those the operator names pass.
	{"!evil.cmd", Host},
	{"k; !evil.cmd", Host},
	{"! evil.cmd", Host},
	{"!EVIL.Cmd", Host},
	{"~*e!evil.cmd", Host},
	{"~0s!evil.cmd", Host},
	{"~0!evil.cmd", Host},
	{"|1!evil.cmd", Host},
	{"j1!evil.cmd", Host},
	{"j 1 0!evil.cmd", Host},
	{"|0e !evil.cmd", Host},
	{".block{!evil.cmd}", Host},
	{"j 1 '!evil.cmd'", Host},
	{`bp app!main "!evil.cmd"`, Host},
	{`bp app!main "\x21evil.cmd"`, Host},
	{"!ext.dll.heap", Host},
	{"!ext..heap", Host},
	{"!ext.x.heap", Host},
	{"!kernel32.x", Host},
	{"!sosex.bpsc x", Host},
	// A command right after a number: a thread or process number without
	// a verb (~0k runs k for thread 0, so ~0q may run q), and j's
	// condition, which the expression evaluator may end at the first
	// character that is not a digit (j1q).
	{"~0q", SessionEnd},
	{"|0q", SessionEnd},
	{"||0q", SessionEnd},
	{"~0lsf c:\\x", Host},
	{"~0as x .she", Indirect},
	{"~0xaq", SessionEnd},
	{"j1q", SessionEnd},
	{"j1as x y", Indirect},
	{"z1q", SessionEnd},
	{"j1.shellx calc", Host},
	{"~0.shellx calc", Host},
	{"|1.kill1", SessionEnd},
	// A module in quotes may be a path (C:\Program Files\...), which the
	// name check cannot read.
	{`!"c:\x\evil".cmd`, Host},
	{`k; ! 'evil'.cmd`, Host},
	// Where dbgeng ends a module name is not documented: a byte that ends
	// the name here may be part of it there, and !ext,evil.x load
	// "ext,evil.dll". The name is read up to a blank or ';' as well.
	{"!ext,evil.x", Host},
	{"!ext=evil.x", Host},
	{"!ext(evil).x", Host},
	{"!ext*evil.x", Host},
	{"!ext!evil.x", Host},
	{"!ext`evil.x", Host},
	{"!ext'evil'.x", Host},
	{"~*e!ext?evil.x", Host},
	{`bp app!main "!ext,evil.x"`, Host},
	// !! may be a shell escape (older console debuggers had one); the
	// documentation says nothing either way.
	{"!!calc", Host},
	{"!! calc", Host},
	{"k;!!calc", Host},
	{"~*e!!calc", Host},
	{".block{!!calc}", Host},
	{`sxe -c "!!calc" av`, Host},
	{"! !calc", Host},
	// Source listings: with a source path holding srv* (the operator's
	// -cdb-args, or _NT_SOURCE_PATH), loading a source file runs the
	// command its symbol file names to fetch it (SrcSrv, the "Using
	// SrcSrv" page), so lsa on a function of a hostile PDB runs a
	// program. The source options make stepping load sources too.
	{"lsa app!main", Host},
	{"lsa 0x1000", Host},
	{"ls", Host},
	{"ls 10, 20", Host},
	{"k; lsa .", Host},
	{"~0lsa app!main", Host},
	{"j1lsa x", Host},
	{`bp app!main "lsa @rip"`, Host},
	{"l+s", Host},
	{"l+t", Host},
	{"l + *", Host},
	{"l+ost", Host},
	{"~*e l+s", Host},
}

func TestBypasses(t *testing.T) {
	for _, b := range bypasses {
		err := (Policy{}).Check(b.cmd)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q accepted", b.cmd)
			continue
		}
		if e.Class != b.class {
			t.Errorf("%q: class %v, want %v (%v)", b.cmd, e.Class, b.class, err)
		}
		// One class allowed: the line is still refused, unless it only
		// held that class.
		for _, p := range []Policy{{AllowSessionEnd: true}, {AllowHostCommands: true}} {
			err := p.Check(b.cmd)
			onlyAllowed := b.class == SessionEnd && p.AllowSessionEnd || b.class == Host && p.AllowHostCommands
			if err == nil && !onlyAllowed {
				t.Errorf("%q accepted under %+v", b.cmd, p)
			}
		}
		if err := (Policy{AllowSessionEnd: true, AllowHostCommands: true}).Check(b.cmd); err != nil {
			t.Errorf("%q refused with everything allowed: %v", b.cmd, err)
		}
	}
}

func TestMalformedAndReserved(t *testing.T) {
	all := Policy{AllowSessionEnd: true, AllowHostCommands: true, Reserved: "mcp"}
	for _, c := range []string{"", " ", "\t", "k\nr", "k\rr", "k\x00", "k\x02", "k\xff", "k\uff1bq", ".echo caf\u00e9", "x\u3000q",
		"!mcp stop", "!MCP", "! mcp", "k; !windbgext.mcp", "~*e!mcp", `bp app!main "\x21mcp"`} {
		if err := all.Check(c); err == nil {
			t.Errorf("%q accepted with everything allowed", c)
		}
	}
	if err := all.Check("!mcpfoo"); err != nil {
		t.Errorf("!mcpfoo: %v", err)
	}
}

func TestMessages(t *testing.T) {
	p := Policy{SessionEndOption: "-allow-session-end", HostOption: "-allow-host-commands"}
	for _, c := range []struct{ cmd, want string }{
		{"q", "q ends the debugging session; session-ending commands are refused unless -allow-session-end is set"},
		{".shell calc", ".shell runs a program on this machine; it reaches past the debugging session to the host or network, which is refused unless -allow-host-commands is set"},
		{"as x y", "as defines an alias; it builds or hides a command at run time, which could carry a refused command, so it is refused unless -allow-session-end is set and -allow-host-commands is set"},
		{"dt QueueItem", `queueitem starts with q`},
		{"", "the command is empty"},
	} {
		err := p.Check(c.cmd)
		if err == nil || !strings.HasPrefix(err.Error(), "invalid command: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v\nwant %q", c.cmd, err, c.want)
		}
	}
	// Only the refused option is named for an indirect construct.
	if err := (Policy{AllowSessionEnd: true, HostOption: "H", SessionEndOption: "S"}).Check("${x}"); err == nil ||
		!strings.HasSuffix(err.Error(), "refused unless H is set") {
		t.Errorf("${x}: %v", err)
	}
	if err := (Policy{}).Check(".shell"); err == nil || !strings.HasSuffix(err.Error(), "unless the server's settings allow them") {
		t.Errorf("no option name: %v", err)
	}
}

// Hostile lines of a megabyte are checked in linear time.
func TestLongLines(t *testing.T) {
	for _, unit := range []string{"!", "! ", ".", ". ", "~", "~0", "*a", "a*", "$", "\\", "a ", "0e", "]e", "debugger ", "!a.", "$u", "~ 0 ", "\\x", "\\x0", "\\0", "!ext ", "!ext \"", "!list -a ", "-xmf", "\\x2e", ".printf", ".printf /d", ".printf \"", "%", ".printf /d %", ".printf -d %"} {
		line := strings.Repeat(unit, (1<<20)/len(unit))
		_ = (Policy{}).check(line)
		_ = (Policy{}).check("k " + line)
	}
	_ = (Policy{}).check("!" + strings.Repeat("ext ", 1<<18)) // a chain of dispatchers
}

// A line longer than MaxLine is refused whatever it holds, under every
// policy: cdb would not read it as the one line that was checked.
func TestMaxLine(t *testing.T) {
	ok := "k " + strings.Repeat("a", MaxLine-2)
	if err := (Policy{}).Check(ok); err != nil {
		t.Errorf("a line of MaxLine bytes: %v", err)
	}
	for _, p := range []Policy{{}, {AllowSessionEnd: true, AllowHostCommands: true}} {
		err := p.Check(ok + "a")
		var e *Error
		if !errors.As(err, &e) || e.Class != Malformed || !strings.Contains(e.Reason, "4096") {
			t.Errorf("%+v: a line of MaxLine+1 bytes: %v, want a malformed refusal naming the bound", p, err)
		}
	}
}

func TestNote(t *testing.T) {
	if n := (Policy{}).Note(); !strings.Contains(n, "end the session") || !strings.Contains(n, ".shell") || !strings.Contains(n, "aliases") {
		t.Errorf("zero policy: %s", n)
	}
	if n := (Policy{AllowSessionEnd: true}).Note(); strings.Contains(n, "end the session") || !strings.Contains(n, "aliases") {
		t.Errorf("session end allowed: %s", n)
	}
	if n := (Policy{AllowSessionEnd: true, AllowHostCommands: true, Reserved: "mcp"}).Note(); n != "Every debugger command is allowed. Commands that read input from the following lines (a, and e* without values) are always refused: give the values on the same line. !mcp controls this server and is always refused." {
		t.Errorf("everything allowed: %s", n)
	}
}

// TestOwnModuleByNameAllowed pins a known gap (docs/WINDBG.md, What it
// cannot see): the check compares module names, not files, so !ext.x and
// !sos.x pass whichever ext.dll or sos.dll the debugger's extension path
// finds first, a planted one included. What moves that path or names a
// file is refused.
func TestOwnModuleByNameAllowed(t *testing.T) {
	for _, c := range []string{"!ext.heap -s", "!sos.dumpheap -stat"} {
		if err := (Policy{}).Check(c); err != nil {
			t.Errorf("%q: %v", c, err)
		}
	}
	for _, c := range []string{".extpath+ c:\\x", ".load c:\\x\\ext.dll", ".loadby sos clr", "!load c:\\x\\ext", "!c:\\x\\ext.heap", `!"c:\x\ext".heap`, ".setdll c:\\x\\ext", "!ext.load c:\\x\\y"} {
		var e *Error
		if err := (Policy{}).Check(c); !errors.As(err, &e) || e.Class != Host {
			t.Errorf("%q: %v, want a Host refusal", c, err)
		}
	}
}

// Some commands read their input from the lines after them: a
// (assemble) up to an empty line, and an e command given an address but
// no values. Sent by a server that writes the command and then its end
// marker, they take the marker for input: the call runs into its timeout
// and the session is lost. They are refused under every policy; e with
// its values on the line, and a word "a" that is no command, pass.
func TestInteractive(t *testing.T) {
	all := Policy{AllowSessionEnd: true, AllowHostCommands: true}
	for _, c := range []string{
		"a", "a 0x1000", "A @rip", "k; a", "~0 a", "~*e a", "~0a", "bp app!main \"a\"", ".if (1) { a }", "j (1) 'a'",
		"eb 0x1000", "eb", "ed @rsp", "eb @rsp + 8", "eb poi( @rsp )", "eb 1000;", "EB 1000 ; g", "ea 1000", "eza 0x1000",
		"e 1000", "ew 0x10 ; k", "~*e eb 1000", "~0 e eb 1000", "~0 e bp x \"a\"", "~*ebp x \"a\"", ".if (1) { bp x 'a' }", "~0eeb 1000", "k; eq @rsp", "ef 0x1000\t",
	} {
		for _, p := range []Policy{{}, all} {
			err := p.Check(c)
			var e *Error
			if !errors.As(err, &e) || e.Class != Interactive || !strings.Contains(e.Reason, "same line") {
				t.Errorf("%+v: %q: %v, want an Interactive refusal", p, c, err)
			}
		}
	}
	for _, c := range []string{
		"eb 0x1000 90", "eb 0x1000 90 90; g", "ed @rsp+8 0", "eb poi(@rsp) 1", "eb (@rsp + 8) 1", "ea 0x1000 \"a;b\"",
		"eza 0x1000 \"text\"", "e 1000 1", "~*e k", "~0 eq", "~2e r", "dv a", "? a + 1", "r rax = a", "dt app!Foo a",
		".echo \"a\"", ".printf \"a %d\", 1", "s -a 0 l9 \"a\"", "bp x \".echo hit\"", "~~[0x1d8]e k", "x app!a", "!a",
	} {
		err := all.Check(c)
		var e *Error
		if errors.As(err, &e) && e.Class == Interactive {
			t.Errorf("%q: %v, want no Interactive refusal", c, err)
		}
	}
}
