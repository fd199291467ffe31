package winexec

import (
	"encoding/base64"
	"unicode/utf16"
)

// Bootstrap is the only PowerShell code winexec ever runs. It is a
// constant: requests reach it as JSON lines on stdin, never as script text,
// so no user data can become PowerShell code.
//
// Protocol (one JSON object per line, in both directions):
//
//	-> ready  {"t":"ready","v":2,"cp":<console code page>}
//	<- request {"id":N,"exe":"<b64>","cmdline":"<b64>","cwd":"<b64>","env":["<b64 of K=V>"],"stdin":"<b64>","timeoutMs":N}
//	-> chunks {"t":"o"|"e","id":N,"d":"<base64>"}   (stdout / stderr, as read)
//	-> end    {"t":"x","id":N,"code":N,"timedOut":b,"cancelled":b,"ms":N}
//	          {"t":"x","id":N,"err":"<base64 UTF-8 message>"} when the start failed
//	<- "cancel" during a request kills the request's tree; EOF on stdin does
//	   the same and then ends the script.
//
// Every string of a request is base64 of its UTF-8 bytes, so no JSON reader
// can reinterpret one: PowerShell 7's ConvertFrom-Json turns a string that
// looks like a date ("2024-01-01T10:00:00") into a DateTime, and Windows
// PowerShell's JavaScriptSerializer does the same to "\/Date(N)\/"; the
// script would then pass the DateTime's text, not the argument. Base64 has
// no character either reader treats as a date (no '-', ':' or '(').
//
// The script starts the target with ProcessStartInfo.Arguments set to our
// command line (PowerShell 5.1 runs on .NET Framework, which has no
// ArgumentList), reads stdout and stderr concurrently as raw bytes with
// ReadAsync, and on timeout or cancel kills the tree from the Windows side:
// TerminateJobObject of the request's Job Object (kill-on-close, created
// through Add-Type and joined right after Process.Start), then
// taskkill /T /F /PID and Process.Kill as fallbacks. The exit code is
// the full 32-bit value from Process.ExitCode. It loops until stdin ends, so
// the same script serves the one-shot PowerShell backend and PSHost.
const Bootstrap = `# winbridge winexec bootstrap v2: requests arrive as JSON lines on stdin.
$ErrorActionPreference = 'Stop'
$ProgressPreference = 'SilentlyContinue'
$cp = 0
try { $cp = [Console]::OutputEncoding.CodePage } catch { $cp = 0 }
if ($cp -eq 0) {
  try { $cp = [int](Get-ItemProperty -Path 'HKLM:\SYSTEM\CurrentControlSet\Control\Nls\CodePage' -Name OEMCP).OEMCP } catch { $cp = 0 }
}
try { [Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false } catch { }
$utf8 = New-Object System.Text.UTF8Encoding $false
$out = [Console]::OpenStandardOutput()
$in = New-Object System.IO.StreamReader -ArgumentList ([Console]::OpenStandardInput()), $utf8
$ser = $null
try {
  Add-Type -AssemblyName System.Web.Extensions
  $ser = New-Object System.Web.Script.Serialization.JavaScriptSerializer
  $ser.MaxJsonLength = [int]::MaxValue
} catch { $ser = $null }
$curId = 0
# A Job Object per request: kill-on-close, no breakaway. Add-Type compiles
# this once per PowerShell process; without it Stop-Tree uses taskkill only.
$jobOk = $false
try {
  Add-Type -TypeDefinition @'
using System;
using System.Runtime.InteropServices;
public static class WinbridgeJob {
  [StructLayout(LayoutKind.Sequential)] struct Basic { public long T1; public long T2; public uint Flags; public UIntPtr Min; public UIntPtr Max; public uint Procs; public UIntPtr Aff; public uint Prio; public uint Sched; }
  [StructLayout(LayoutKind.Sequential)] struct Io { public ulong A, B, C, D, E, F; }
  [StructLayout(LayoutKind.Sequential)] struct Ext { public Basic B; public Io I; public UIntPtr P1, P2, P3, P4; }
  [DllImport("kernel32.dll", SetLastError = true)] static extern IntPtr CreateJobObjectW(IntPtr a, IntPtr n);
  [DllImport("kernel32.dll", SetLastError = true)] static extern bool SetInformationJobObject(IntPtr j, int c, ref Ext i, int n);
  [DllImport("kernel32.dll", SetLastError = true)] static extern bool AssignProcessToJobObject(IntPtr j, IntPtr p);
  [DllImport("kernel32.dll", SetLastError = true)] static extern bool TerminateJobObject(IntPtr j, uint c);
  [DllImport("kernel32.dll", SetLastError = true)] static extern bool CloseHandle(IntPtr h);
  static bool Limit(IntPtr j, uint flags) { Ext e = new Ext(); e.B.Flags = flags; return SetInformationJobObject(j, 9, ref e, Marshal.SizeOf(typeof(Ext))); }
  public static IntPtr Start(IntPtr proc) {
    IntPtr j = CreateJobObjectW(IntPtr.Zero, IntPtr.Zero);
    if (j == IntPtr.Zero) return j;
    if (!Limit(j, 0x2000) || !AssignProcessToJobObject(j, proc)) { CloseHandle(j); return IntPtr.Zero; }
    return j;
  }
  public static void Kill(IntPtr j) { if (j != IntPtr.Zero) TerminateJobObject(j, 1); }
  public static void Release(IntPtr j) { if (j != IntPtr.Zero) { Limit(j, 0); CloseHandle(j); } }
}
'@
  $jobOk = $true
} catch { $jobOk = $false }
$job = [IntPtr]::Zero

function Send([string]$s) {
  $b = $utf8.GetBytes($s + "` + "`" + `n")
  $out.Write($b, 0, $b.Length)
  $out.Flush()
}

function B64([string]$s) { [Convert]::ToBase64String($utf8.GetBytes($s)) }

# Request strings arrive as base64 of UTF-8, never as JSON strings that a
# reader could take for dates.
function Str($v) { if ($null -eq $v) { return '' }; return $utf8.GetString([Convert]::FromBase64String([string]$v)) }

function JBool([bool]$b) { if ($b) { 'true' } else { 'false' } }

function Stop-Tree($p) {
  # The job first; taskkill for what started before the child joined it.
  try { if ($script:job -ne [IntPtr]::Zero) { [WinbridgeJob]::Kill($script:job) } } catch { }
  try {
    $k = New-Object System.Diagnostics.ProcessStartInfo
    $k.FileName = 'taskkill.exe'
    $k.Arguments = '/T /F /PID ' + $p.Id
    $k.UseShellExecute = $false
    $k.CreateNoWindow = $true
    $k.RedirectStandardOutput = $true
    $k.RedirectStandardError = $true
    $kp = [System.Diagnostics.Process]::Start($k)
    $null = $kp.StandardOutput.ReadToEnd()
    $null = $kp.StandardError.ReadToEnd()
    $null = $kp.WaitForExit(10000)
  } catch { }
  try { if (-not $p.HasExited) { $p.Kill() } } catch { }
}

function Send-Chunk([string]$kind, [byte[]]$buf, [int]$n) {
  Send ('{"t":"' + $kind + '","id":' + $script:curId + ',"d":"' + [Convert]::ToBase64String($buf, 0, $n) + '"}')
}

function Invoke-Request([string]$line) {
  $script:curId = 0
  $sw = [System.Diagnostics.Stopwatch]::StartNew()
  try {
    if ($null -ne $ser) { $r = $ser.DeserializeObject($line) } else { $r = ConvertFrom-Json -InputObject $line }
    $script:curId = [long]$r.id
    $timeoutMs = [long]$r.timeoutMs
    $psi = New-Object System.Diagnostics.ProcessStartInfo
    $psi.FileName = Str $r.exe
    $psi.Arguments = Str $r.cmdline
    $psi.UseShellExecute = $false
    $psi.CreateNoWindow = $true
    $psi.RedirectStandardInput = $true
    $psi.RedirectStandardOutput = $true
    $psi.RedirectStandardError = $true
    $cwd = Str $r.cwd
    if ($cwd) { $psi.WorkingDirectory = $cwd }
    foreach ($e in @($r.env)) {
      if ($e) {
        $kv = Str $e
        $i = $kv.IndexOf('=')
        $psi.EnvironmentVariables[$kv.Substring(0, $i)] = $kv.Substring($i + 1)
      }
    }
    $data = [Convert]::FromBase64String([string]$r.stdin)
    $p = [System.Diagnostics.Process]::Start($psi)
    $script:job = [IntPtr]::Zero
    if ($jobOk) { try { $script:job = [WinbridgeJob]::Start($p.Handle) } catch { $script:job = [IntPtr]::Zero } }
  } catch {
    Send ('{"t":"x","id":' + $script:curId + ',"err":"' + (B64 $_.Exception.Message) + '"}')
    return
  }
  $tw = $null
  if ($data.Length -gt 0) {
    $tw = $p.StandardInput.BaseStream.WriteAsync($data, 0, $data.Length)
  } else {
    try { $p.StandardInput.Close() } catch { }
  }
  $so = $p.StandardOutput.BaseStream
  $se = $p.StandardError.BaseStream
  $bo = New-Object byte[] 65536
  $be = New-Object byte[] 65536
  $to = $so.ReadAsync($bo, 0, $bo.Length)
  $te = $se.ReadAsync($be, 0, $be.Length)
  $deadline = $null
  if ($timeoutMs -gt 0) { $deadline = [DateTime]::UtcNow.AddMilliseconds($timeoutMs) }
  $killed = $false
  $timedOut = $false
  $cancelled = $false
  $listen = $true
  $exitAt = $null
  while ($true) {
    $streams = ($null -ne $to) -or ($null -ne $te)
    if (-not $streams -and $p.HasExited) { break }
    if ($p.HasExited) {
      # A descendant (a daemon) may hold the pipes open forever.
      if ($null -eq $exitAt) { $exitAt = [DateTime]::UtcNow }
      elseif (([DateTime]::UtcNow - $exitAt).TotalMilliseconds -ge 2000) { break }
    }
    $wait = 250
    if ($null -ne $deadline) {
      $wait = [int][Math]::Max(0, [Math]::Min(250, ($deadline - [DateTime]::UtcNow).TotalMilliseconds))
    }
    if ($streams) {
      $tasks = New-Object 'System.Collections.Generic.List[System.Threading.Tasks.Task]'
      if ($null -ne $to) { $tasks.Add($to) }
      if ($null -ne $te) { $tasks.Add($te) }
      if ($null -ne $tw) { $tasks.Add($tw) }
      if ($listen) { $tasks.Add($script:pending) }
      $null = [System.Threading.Tasks.Task]::WaitAny($tasks.ToArray(), $wait)
    } else {
      $null = $p.WaitForExit($wait)
    }
    if ($listen -and $script:pending.IsCompleted) {
      # Any line (or EOF) during a request means cancel.
      $listen = $false
      $cancelled = $true
      if (-not $killed) {
        Stop-Tree $p
        $killed = $true
        $deadline = [DateTime]::UtcNow.AddMilliseconds(2000)
      }
    }
    if ($null -ne $deadline -and [DateTime]::UtcNow -ge $deadline) {
      if ($killed) { break }
      $timedOut = $true
      Stop-Tree $p
      $killed = $true
      $deadline = [DateTime]::UtcNow.AddMilliseconds(2000)
    }
    if ($null -ne $to -and $to.IsCompleted) {
      $n = 0
      try { $n = $to.Result } catch { $n = 0 }
      if ($n -gt 0) { Send-Chunk 'o' $bo $n; $to = $so.ReadAsync($bo, 0, $bo.Length) } else { $to = $null }
    }
    if ($null -ne $te -and $te.IsCompleted) {
      $n = 0
      try { $n = $te.Result } catch { $n = 0 }
      if ($n -gt 0) { Send-Chunk 'e' $be $n; $te = $se.ReadAsync($be, 0, $be.Length) } else { $te = $null }
    }
    if ($null -ne $tw -and $tw.IsCompleted) {
      try { $p.StandardInput.Close() } catch { }
      $tw = $null
    }
  }
  if (-not $p.WaitForExit(5000)) { Stop-Tree $p; $null = $p.WaitForExit(5000) }
  # A normal end releases the job, so a daemon the program started lives on.
  try { [WinbridgeJob]::Release($script:job) } catch { }
  $script:job = [IntPtr]::Zero
  $code = -1
  try { $code = $p.ExitCode } catch { $code = -1 }
  Send ('{"t":"x","id":' + $script:curId + ',"code":' + $code + ',"timedOut":' + (JBool $timedOut) + ',"cancelled":' + (JBool $cancelled) + ',"ms":' + $sw.ElapsedMilliseconds + '}')
  try { $p.Dispose() } catch { }
}

$script:pending = $in.ReadLineAsync()
Send ('{"t":"ready","v":2,"cp":' + $cp + '}')
while ($true) {
  $line = $script:pending.Result
  if ($null -eq $line) { break }
  $script:pending = $in.ReadLineAsync()
  if ($line -eq '' -or $line -eq 'cancel') { continue }
  try { Invoke-Request $line } catch {
    Send ('{"t":"x","id":' + $script:curId + ',"err":"' + (B64 $_.Exception.Message) + '"}')
  }
}
`

// PowerShellArgs are the arguments that start every PowerShell process:
// no profile (its output would corrupt the protocol and it costs time), no
// prompts, no execution policy check, and the constant Bootstrap.
func PowerShellArgs() []string {
	return []string{"-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-EncodedCommand", EncodedBootstrap()}
}

// PowerShellArgv returns the exact argv used to start PowerShell: exe
// (powershell.exe, pwsh.exe or a path) followed by PowerShellArgs.
func PowerShellArgv(exe string) []string { return append([]string{exe}, PowerShellArgs()...) }

// EncodedBootstrap returns Bootstrap as -EncodedCommand expects it: base64
// of its UTF-16LE encoding.
func EncodedBootstrap() string { return EncodePowerShell(Bootstrap) }

// EncodePowerShell encodes a script for -EncodedCommand (base64 of
// UTF-16LE).
func EncodePowerShell(script string) string {
	u := utf16.Encode([]rune(script))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		b[2*i], b[2*i+1] = byte(c), byte(c>>8)
	}
	return base64.StdEncoding.EncodeToString(b)
}

// DecodePowerShell reverses EncodePowerShell.
func DecodePowerShell(enc string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return "", err
	}
	if len(b)%2 != 0 {
		return "", ErrProtocol
	}
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = uint16(b[2*i]) | uint16(b[2*i+1])<<8
	}
	return string(utf16.Decode(u)), nil
}
