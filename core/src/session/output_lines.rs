//! `dapper/outputLines`: the lines a debuggee queued (log points' lines), sent as one
//! event per batch rather than a frame each, which cost a program that logs on every
//! call as much as the log point's own hit. The batch holds runs of lines from one place
//! (`{"outputs": [texts], …the rest of their events' body}`); the client gets one
//! `output` event per line, in the batch's order, as if each had come alone.

use super::state::Session;
use crate::context::SessionContext;
use crate::dap::raw::LazyJson;
use crate::LogLevel;
use serde_json::{Map, Value};

pub(super) const OUTPUT_LINES_EVENT: &str = "dapper/outputLines";

impl Session {
    /// Sends the client an `output` event for each line of a `dapper/outputLines` body,
    /// `{"category": …, "runs": [{"outputs": [text, …], "source": …, "line": …}]}`. What
    /// is not a run with a list of `outputs`, or not a string among them, is left out,
    /// and said so.
    pub(super) fn forward_output_lines(&mut self, ctx: &mut SessionContext<'_>, body: &Value) {
        let category = body.get("category").filter(|value| value.is_string());
        let Some(runs) = body.get("runs").and_then(Value::as_array) else {
            ctx.log(
                LogLevel::Warn,
                format!("Ignored a {OUTPUT_LINES_EVENT} event from the debuggee without a list of runs."),
            );
            return;
        };
        let mut left_out = 0usize;
        for run in runs {
            let Some((outputs, template)) =
                run.as_object().and_then(|run| split_run(run, category))
            else {
                left_out += 1;
                continue;
            };
            // The run's place is mapped once, for all its lines.
            let template = LazyJson::from_value(Value::Object(template));
            let template = match self
                .mappings()
                .and_then(|mappings| mappings.event_body("output", &template))
            {
                Some(mapped) => mapped,
                None => template.into_value(),
            };
            for output in outputs {
                let Some(text) = output.as_str() else {
                    left_out += 1;
                    continue;
                };
                let mut body = template.clone();
                if let Some(fields) = body.as_object_mut() {
                    fields.insert("output".to_string(), Value::String(text.to_string()));
                }
                self.send_event(ctx, "output", Some(body));
            }
        }
        if left_out > 0 {
            ctx.log(
                LogLevel::Warn,
                format!(
                    "Left out {left_out} parts of a {OUTPUT_LINES_EVENT} event from the debuggee: each run must be an object with a list of string 'outputs'."
                ),
            );
        }
    }
}

/// A run's texts, and the body its lines' events share but for their text: the batch's
/// category and the run's other members (its place).
fn split_run<'a>(
    run: &'a Map<String, Value>,
    category: Option<&Value>,
) -> Option<(&'a Vec<Value>, Map<String, Value>)> {
    let outputs = run.get("outputs")?.as_array()?;
    let mut template = Map::with_capacity(run.len() + 1);
    if let Some(category) = category {
        template.insert("category".to_string(), category.clone());
    }
    template.extend(
        run.iter()
            .filter(|(key, _)| key.as_str() != "outputs")
            .map(|(key, value)| (key.clone(), value.clone())),
    );
    Some((outputs, template))
}
