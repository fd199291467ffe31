package gateway

import (
	"fmt"

	"github.com/winbridge/winbridge/winexec"
)

// settings are what a policy decides, resolved: the profile in force, the
// limits with their defaults, the roots. A surface keeps the settings it
// was built with, so a call sees one consistent policy even while Reload
// swaps it.
type settings struct {
	pol     *Policy
	profile *Profile
	profNm  string
	limits  Limits
	risk    RiskWording
	scope   *scope
}

func newSettings(pol *Policy, profile string, mapper *winexec.PathMapper) (*settings, error) {
	if pol == nil {
		pol = &Policy{}
	}
	pr, ok := pol.profile(profile)
	if !ok {
		return nil, fmt.Errorf("gateway: no profile %q in the policy", profile)
	}
	st := &settings{pol: pol, profNm: profile}
	prc := *pr
	st.profile = &prc
	if st.profNm == "" {
		st.profNm = pol.Profile
	}
	if st.profNm == "" {
		st.profNm = "default"
	}
	if st.profile.Target == "" {
		st.profile.Target = TargetAnthropic
	}
	st.limits = pol.Limits.withDefaults()
	st.risk = pol.Risk.withDefaults()
	sc, err := newScope(pol.Roots, mapper)
	if err != nil {
		return nil, fmt.Errorf("gateway: %w", err)
	}
	st.scope = sc
	for key, r := range pol.Tools {
		if len(r.PathArgs) > 0 && len(pol.Roots) == 0 {
			return nil, fmt.Errorf("gateway: tools[%q] declares pathArgs but the policy has no roots", key)
		}
	}
	return st, nil
}
