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
            let Some((outputs, template)) = run.as_object().and_then(split_run) else {
                left_out += 1;
                continue;
            };
            // The run's place is mapped once, for all its lines.
            let template = LazyJson::from_value(Value::Object(event_body(category, template)));
            let template = match self
                .mappings()
                .and_then(|mappings| mappings.event_body("output", &template))
            {
                Some(mapped) => mapped,
                None => template.into_value(),
            };
            for output in outputs {
                let (Some(text), Value::Object(template)) = (output.as_str(), &template) else {
                    left_out += 1;
                    continue;
                };
                let mut body = template.clone();
                body.insert("output".to_string(), Value::String(text.to_string()));
                self.send_event(ctx, "output", Some(Value::Object(body)));
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

/// A run's texts, and the members its events' bodies share (all but `outputs`).
fn split_run(run: &Map<String, Value>) -> Option<(&Vec<Value>, Map<String, Value>)> {
    let outputs = run.get("outputs")?.as_array()?;
    let place = run
        .iter()
        .filter(|(key, _)| key.as_str() != "outputs")
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    Some((outputs, place))
}

/// An output event's body but for its text: the category and the run's place.
fn event_body(category: Option<&Value>, place: Map<String, Value>) -> Map<String, Value> {
    let mut body = Map::with_capacity(place.len() + 2);
    if let Some(category) = category {
        body.insert("category".to_string(), category.clone());
    }
    body.extend(place);
    body
}
