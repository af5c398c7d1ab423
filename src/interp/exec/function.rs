//! Calling a shell function: positional parameters, locals, `return`
//! and the nesting limit.

use crate::interp::lossy;
use crate::interp::{Flow, MAX_NESTING, Shell, Status};
use crate::syntax::ast::*;

impl Shell<'_> {
    pub(super) fn call_function(&mut self, def: &FunctionDef, argv: &[Vec<u8>]) -> Status {
        // bash's FUNCNEST, when set to a positive number; our own bound
        // otherwise (bash has none and dies of the stack overflow).
        let funcnest = self
            .vars
            .get("FUNCNEST")
            .and_then(|v| lossy(v).trim().parse::<u32>().ok())
            .filter(|&n| n > 0);
        if let Some(limit) = funcnest.filter(|&n| self.depth.functions >= n) {
            self.error(&format!(
                "{}: maximum function nesting level exceeded ({limit})",
                def.name
            ));
            return Err(Flow::Abort(1));
        }
        if self.depth.functions >= MAX_NESTING {
            self.error(&format!(
                "{}: maximum function nesting level exceeded",
                def.name
            ));
            return Err(Flow::Abort(1));
        }
        let saved_args = std::mem::replace(&mut self.positional, argv[1..].to_vec());
        self.vars.push_frame();
        self.depth.functions += 1;
        self.func_names.push(def.name.clone());
        let saved_loop = std::mem::replace(&mut self.depth.loops, 0);
        // A RETURN trap set outside is not the function's (bash without
        // `set -T`): hidden for the call; one the body sets fires at its end.
        let outer_return = self.traps.actions.remove("RETURN");
        let lines = self.position.function_lines.get(&def.name).cloned();
        let saved_lines = lines.map(|l| {
            (
                std::mem::replace(&mut self.position.line_starts, l.0),
                std::mem::replace(&mut self.position.line_base, l.1),
            )
        });
        let mut r = self.run_compound(&def.body);
        if let Err(flow) = self.run_return_trap() {
            r = Err(flow);
        }
        if let Some(outer) = outer_return {
            self.traps.actions.insert("RETURN".into(), outer);
        }
        if let Some(saved) = saved_lines {
            (self.position.line_starts, self.position.line_base) = saved;
        }
        self.depth.loops = saved_loop;
        self.func_names.pop();
        self.depth.functions -= 1;
        self.vars.pop_frame();
        self.positional = saved_args;
        match r {
            Err(Flow::Return(s)) => Ok(s),
            other => other,
        }
    }
}
