package winexec

import (
	"errors"
	"strings"
	"testing"
)

// starSparedTraffic lists, independently of launcherEnv, the names "*"
// must not cover because they load code (CLASSPATH), send a program's
// traffic elsewhere or change whom it trusts (proxies, CA bundles,
// verification switches, TLS key logs), steer a batch script through
// cmd.exe's dynamic variables, or choose the directory installers extract
// and load DLLs from (TEMP, TMP, TMPDIR), or name a command or the
// configuration that names one (SHELL, CC, KUBECONFIG's exec plug-ins,
// DOCKER_CONFIG's credential helpers, AWS_CONFIG_FILE's
// credential_process, GOROOT's toolchain). FuzzExecutorDecision checks
// them too.
var starSparedTraffic = []string{
	"CLASSPATH",
	"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "FTP_PROXY",
	"SSL_CERT_FILE", "SSL_CERT_DIR", "NODE_EXTRA_CA_CERTS", "NODE_TLS_REJECT_UNAUTHORIZED",
	"NODE_USE_ENV_PROXY", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "PYTHONHTTPSVERIFY",
	"SSLKEYLOGFILE", "AWS_CA_BUNDLE", "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH", "CURL_HOME", "WGETRC",
	"PIP_INDEX_URL", "PIP_CERT", "PIP_TRUSTED_HOST", "UV_INDEX_URL",
	"GOPROXY", "GOSUMDB", "GONOSUMDB", "GOINSECURE", "GOFLAGS", "GOTOOLCHAIN",
	"CD", "ERRORLEVEL", "CMDCMDLINE", "CMDEXTVERSION", "RANDOM", "DATE", "TIME",
	"HIGHESTNUMANODENUMBER",
	"TEMP", "TMP", "TMPDIR",
	// Commands named outright, and configuration that names them or
	// where credentials go.
	"SHELL", "CC", "CXX", "CPP", "LD", "AR", "RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "MAKEFLAGS",
	"CARGO_HOME", "CARGO_BUILD_RUSTC_WRAPPER", "CARGO_HTTP_PROXY", "YARN_HTTPS_PROXY", "YARN_YARN_PATH",
	"KUBECONFIG", "KUBE_EDITOR", "DOCKER_CONFIG", "DOCKER_HOST", "AWS_CONFIG_FILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3",
	"GOROOT", "GOPATH", "GOMODCACHE", "GOCACHE", "GOENV", "GEM_HOME", "GEM_PATH",
	// Found in the guards review: the JVM build tools' launcher scripts
	// (mvn.cmd, gradlew.bat, ant.bat) run %JAVA_HOME%\bin\java.exe and
	// pass *_OPTS to it (-javaagent: loads a jar), Gradle runs the init
	// scripts of GRADLE_USER_HOME, rustup runs the toolchain
	// RUSTUP_TOOLCHAIN names (a directory path is allowed), and
	// PowerShell takes its execution policy from
	// PSExecutionPolicyPreference.
	"JAVA_HOME", "JAVA_OPTS", "MAVEN_OPTS", "MAVEN_ARGS", "GRADLE_OPTS", "GRADLE_USER_HOME", "ANT_OPTS", "ANT_HOME",
	"SBT_OPTS", "RUSTUP_TOOLCHAIN", "RUSTUP_HOME", "PSExecutionPolicyPreference",
}

// TestPolicyStarSparesTrafficAndTrustEnv: with ALLOW_ENV=* a model could
// set HTTPS_PROXY and SSL_CERT_FILE (or NODE_TLS_REJECT_UNAUTHORIZED=0)
// and have an allowed program that holds the user's tokens (git, gh, az,
// npm) send its authenticated requests through the model's proxy, trusting
// the model's CA; set CLASSPATH and have java load its classes; set
// ERRORLEVEL or CD, which cmd.exe reads from the environment before its
// dynamic value, and steer a batch file's "if errorlevel"-style checks or
// %CD%\tool.exe; or set TEMP and have an installer extract into, and load
// DLLs from, a directory the model filled. "*" must not cover them, in
// any case; listed by name they pass.
func TestPolicyStarSparesTrafficAndTrustEnv(t *testing.T) {
	star := Policy{AllowEnv: []string{"*"}}
	for _, upper := range starSparedTraffic {
		for _, name := range []string{upper, strings.ToLower(upper)} {
			var na *NotAllowedError
			if err := star.CheckEnv(map[string]string{name: "http://127.0.0.1:8080"}); !errors.As(err, &na) {
				t.Errorf(`"*" allowed %s: %v`, name, err)
			}
			if err := (&Policy{AllowEnv: []string{name}}).CheckEnv(map[string]string{name: "x"}); err != nil {
				t.Errorf("%s listed by name refused: %v", name, err)
			}
		}
	}
	for _, name := range []string{"PROXY_MODE", "CDPATH_X", "TIMEZONE", "TZ", "DATEFMT", "TEMPLATE", "CLASS", "OPENSSL_ia32cap", "PIPX", "GOOS", "GOARCH", "LANG",
		"SHELLX", "CCACHE_X", "AWS_REGION", "AWS_PROFILE", "DOCKER_BUILDKIT", "CARGO", "YARN", "KUBE_EDITOR_X", "GOMAXPROCS", "GOOGLE_CLOUD_PROJECT"} {
		if err := star.CheckEnv(map[string]string{name: "x"}); err != nil {
			t.Errorf(`"*" refused the plain setting %s: %v`, name, err)
		}
	}
}
