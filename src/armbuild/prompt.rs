//! The system prompt: the shared base prompt, a blank line, the arm's bootstrap.
//!
//! The base prompt comes from one template for every arm and only names the
//! repository, the host URL and the token, so it is byte-identical across
//! arms built with the same inputs. A bootstrap may end with an Agent
//! Skill's body (its YAML frontmatter removed).

use super::error::BuildError;
use crate::armbuild::source::{BASE_PROMPT_FILE, SkillSource};
use crate::armbuild::template::Vars;
use std::path::{Path, PathBuf};

/// The filled base prompt, ending without a newline.
pub fn base_prompt(arms_dir: &Path, vars: &Vars) -> Result<String, BuildError> {
    let path = arms_dir.join(BASE_PROMPT_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| BuildError::io(&path, e))?;
    let filled = vars.fill(&text).map_err(|message| BuildError::Skill {
        path: path.clone(),
        message,
    })?;
    let filled = filled.trim_end().to_string();
    if filled.is_empty() || filled.contains("\n\n") {
        return Err(BuildError::Skill {
            path,
            message: "the base prompt must be non-empty and hold no blank line (a blank line separates it from the bootstrap)".into(),
        });
    }
    Ok(filled)
}

/// `base`, a blank line, `bootstrap`.
pub fn system_prompt(base: &str, bootstrap: &str) -> String {
    format!("{base}\n\n{bootstrap}")
}

/// The skill file to use: `explicit`, else the installed tool's own, else the bundled copy.
pub fn find_skill(
    skill: &SkillSource,
    explicit: Option<&Path>,
    tool_path: Option<&Path>,
    bundle_roots: &[PathBuf],
) -> Result<PathBuf, BuildError> {
    if let Some(p) = explicit {
        return if p.is_file() {
            Ok(p.to_path_buf())
        } else {
            Err(BuildError::Skill {
                path: p.to_path_buf(),
                message: "--skill: no such file".into(),
            })
        };
    }
    if let Some(root) = tool_path.and_then(package_root) {
        if let Some(found) = skill
            .installed
            .iter()
            .map(|rel| root.join(rel))
            .find(|p| p.is_file())
        {
            return Ok(found);
        }
    }
    bundle_roots
        .iter()
        .map(|root| root.join(&skill.bundled))
        .find(|p| p.is_file())
        .ok_or_else(|| BuildError::Skill {
            path: PathBuf::from(&skill.bundled),
            message: format!(
                "skill not found in {}; pass --skill PATH",
                bundle_roots
                    .iter()
                    .map(|r| r.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        })
}

/// The nearest folder above `tool` holding a `package.json` (an npm package).
fn package_root(tool: &Path) -> Option<PathBuf> {
    tool.ancestors()
        .skip(1)
        .take(6)
        .find(|d| d.join("package.json").is_file())
        .map(Path::to_path_buf)
}

/// The body of a skill file: everything after its `---` YAML frontmatter.
pub fn skill_body(path: &Path) -> Result<String, BuildError> {
    let text = std::fs::read_to_string(path).map_err(|e| BuildError::io(path, e))?;
    let err = |message: &str| BuildError::Skill {
        path: path.to_path_buf(),
        message: message.into(),
    };
    let mut lines = text.split_inclusive('\n');
    let body = match lines.next() {
        Some(first) if first.trim_end() == "---" => {
            let mut offset = first.len();
            let mut closed = false;
            for line in lines {
                offset += line.len();
                if line.trim_end() == "---" {
                    closed = true;
                    break;
                }
            }
            if !closed {
                return Err(err("the YAML frontmatter opened by `---` is never closed"));
            }
            &text[offset..]
        }
        _ => text.as_str(),
    };
    let body = body.trim();
    if body.is_empty() {
        return Err(err("the skill has no body"));
    }
    Ok(body.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_is_stripped() -> Result<(), Box<dyn std::error::Error>> {
        let d = tempfile::tempdir()?;
        let f = d.path().join("SKILL.md");
        std::fs::write(&f, "---\nname: x\ndescription: y\n---\n\n# Title\nbody\n")?;
        assert_eq!(skill_body(&f)?, "# Title\nbody");
        Ok(())
    }

    #[test]
    fn file_without_frontmatter_is_all_body() -> Result<(), Box<dyn std::error::Error>> {
        let d = tempfile::tempdir()?;
        let f = d.path().join("SKILL.md");
        std::fs::write(&f, "# Title\n---\nmore\n")?;
        assert_eq!(skill_body(&f)?, "# Title\n---\nmore");
        Ok(())
    }

    #[test]
    fn unclosed_frontmatter_is_error() -> Result<(), Box<dyn std::error::Error>> {
        let d = tempfile::tempdir()?;
        let f = d.path().join("SKILL.md");
        std::fs::write(&f, "---\nname: x\n# Title\n")?;
        assert!(skill_body(&f).is_err());
        Ok(())
    }

    #[test]
    fn installed_skill_next_to_package_wins_over_bundled() -> Result<(), Box<dyn std::error::Error>>
    {
        let d = tempfile::tempdir()?;
        let pkg = d.path().join("lib/node_modules/gitea-axi");
        std::fs::create_dir_all(pkg.join("bin"))?;
        std::fs::write(pkg.join("package.json"), "{}")?;
        std::fs::write(pkg.join("bin/cli.js"), "")?;
        std::fs::write(pkg.join("SKILL.md"), "x")?;
        let bundle = d.path().join("share");
        std::fs::create_dir_all(bundle.join("skills/gitea-axi"))?;
        std::fs::write(bundle.join("skills/gitea-axi/SKILL.md"), "y")?;
        let source = SkillSource {
            bundled: "skills/gitea-axi/SKILL.md".into(),
            installed: vec!["SKILL.md".into()],
        };
        let found = find_skill(
            &source,
            None,
            Some(&pkg.join("bin/cli.js")),
            std::slice::from_ref(&bundle),
        )?;
        assert_eq!(found, pkg.join("SKILL.md"));
        let found = find_skill(
            &source,
            None,
            Some(&d.path().join("elsewhere/tool")),
            std::slice::from_ref(&bundle),
        )?;
        assert_eq!(found, bundle.join("skills/gitea-axi/SKILL.md"));
        Ok(())
    }
}
