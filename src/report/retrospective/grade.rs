//! Grading a process-quality criterion from its findings and its sites.
//!
//! Findings are weighted by severity (error 1, warning ½, info ⅒) and
//! divided by the number of sites the criterion's rules look at (the
//! breakpoints, the repeated invocations, …):
//!
//! | grade | when |
//! |---|---|
//! | Good | no findings |
//! | Mostly | no errors and weighted findings ≤ ¼ of the sites |
//! | Partial | weighted findings ≤ ½ of the sites |
//! | Weak | weighted findings < the number of sites |
//! | Missing | weighted findings ≥ the number of sites |
//! | Fails | (runtime correctness only) a module cannot load, or a line throws whenever it runs |

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Grade {
    Good,
    Mostly,
    Partial,
    Weak,
    Missing,
    /// The process cannot run as written: a module does not parse, or
    /// reads a name that is not defined.
    Fails,
    NotAssessed,
}

impl Grade {
    pub const ALL: [Grade; 7] = [
        Grade::Good,
        Grade::Mostly,
        Grade::Partial,
        Grade::Weak,
        Grade::Missing,
        Grade::Fails,
        Grade::NotAssessed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Grade::Good => "Good",
            Grade::Mostly => "Mostly",
            Grade::Partial => "Partial",
            Grade::Weak => "Weak",
            Grade::Missing => "Missing",
            Grade::Fails => "Fails",
            Grade::NotAssessed => "Not assessed",
        }
    }
}

impl fmt::Display for Grade {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Severity-weighted finding count (tenths, to stay in integers).
pub fn weight(errors: usize, warnings: usize, infos: usize) -> usize {
    errors * 10 + warnings * 5 + infos
}

pub fn grade(errors: usize, warnings: usize, infos: usize, sites: usize) -> Grade {
    if errors + warnings + infos == 0 {
        return Grade::Good;
    }
    let w = weight(errors, warnings, infos);
    let s = sites.max(1) * 10;
    if errors == 0 && w * 4 <= s {
        Grade::Mostly
    } else if w * 2 <= s {
        Grade::Partial
    } else if w < s {
        Grade::Weak
    } else {
        Grade::Missing
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds() {
        assert_eq!(grade(0, 0, 0, 5), Grade::Good);
        assert_eq!(grade(0, 0, 0, 0), Grade::Good);
        // 1 warning over 2 sites: ½·1 = 0.5 ≤ 2/4.
        assert_eq!(grade(0, 1, 0, 2), Grade::Mostly);
        // An error is never "mostly" fine.
        assert_eq!(grade(1, 0, 0, 8), Grade::Partial);
        assert_eq!(grade(0, 2, 0, 2), Grade::Partial);
        assert_eq!(grade(1, 1, 0, 2), Grade::Weak);
        assert_eq!(grade(2, 0, 0, 2), Grade::Missing);
        assert_eq!(grade(1, 0, 0, 0), Grade::Missing);
        // Notes weigh little: 4 infos over 2 sites is still mostly fine.
        assert_eq!(grade(0, 0, 4, 2), Grade::Mostly);
    }
}
