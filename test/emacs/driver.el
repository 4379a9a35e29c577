;;; driver.el --- Dapper's adapter under dape, Emacs's DAP client  -*- lexical-binding: t; -*-

;; Run by emacs.test.ts, one Emacs per scenario:
;;
;;   emacs --batch -l test/emacs/driver.el -f dapper-test-main SCENARIO
;;
;; with DAPPER_EMACS_FORM (how dape reaches the adapter: see `dapper-test--adapter-keys'),
;; DAPPER_EMACS_ADAPTER (dist/adapter.js), DAPPER_EMACS_PORT (with the form `port'),
;; DAPPER_EMACS_FIXTURES (test/fixtures), DAPPER_EMACS_PYTHON (the debuggee's interpreter;
;; unset, the adapter's default, python3) and, for the attach scenario,
;; DAPPER_EMACS_ATTACH_PORT (where the program listens).
;;
;; A scenario does what a user does (breakpoints toggled in file buffers, `dape' with a
;; configuration of `dape-configs', stepping, continuing) and checks what dape shows: its
;; connections, threads, stack frames, scopes and breakpoints, and the DAP events and
;; reverse requests it received (recorded below).  It prints "ok" and exits 0, or prints
;; what it expected and what it got, with the DAP messages of the session and dape's REPL,
;; and exits 1 (DAPPER_EMACS_VERBOSE=1 prints them after an "ok" too).  Every wait has a
;; time limit.

;; Debian's elpa-dape is on the load path through its site-start; an Emacs with dape from
;; ELPA has it once its packages are activated, which --batch does not do by itself.
(unless (require 'dape nil t)
  (package-activate-all)
  (require 'dape))
(require 'cl-lib)
(require 'json)
(require 'subr-x)

(defvar dapper-test-seconds 30
  "How long any one wait of a scenario may take.")

(defvar dapper-test--log nil
  "The DAP messages of the scenario, newest first: (KIND NAME BODY CONN).
KIND is `event' or `request' (received by dape), `sent' (a request dape sent) or
`response' (the answer to one, when dape waited for it).")

(defun dapper-test--record-sent (request conn command arguments &optional cb)
  "Around `dape-request': record the request, and its response when dape waits for one."
  (push (list 'sent command arguments conn) dapper-test--log)
  (funcall request conn command arguments
           (when cb
             (lambda (body error)
               (push (list 'response command (if error `(:error ,error) body) conn) dapper-test--log)
               (funcall cb body error)))))

(defun dapper-test--record-event (conn event body)
  (push (list 'event event (copy-tree body t) conn) dapper-test--log))

(defun dapper-test--record-request (conn command arguments)
  (push (list 'request command (copy-tree arguments t) conn) dapper-test--log))

(advice-add 'dape-handle-event :before #'dapper-test--record-event)
(advice-add 'dape-handle-request :before #'dapper-test--record-request)
(advice-add 'dape-request :around #'dapper-test--record-sent)

;; The sid root has no git: project.el would fail to run it, print an error and fall back
;; on the buffer's directory, which is what `dape-cwd' then gets without version control.
(setq vc-handled-backends nil)

;;; The configurations, as the README gives them.

(defun dapper-test--env (name)
  (or (getenv name) (error "The environment has no %s" name)))

(defun dapper-test--adapter-keys ()
  "How dape reaches the adapter, in the form DAPPER_EMACS_FORM names (the README's three):
`port': connect to an adapter already listening on DAPPER_EMACS_PORT; `autoport': dape
starts `node adapter.js --port' on a free port and connects; `stdio': dape starts
`node adapter.js' for each session and speaks DAP on its stdin and stdout."
  (let ((adapter (dapper-test--env "DAPPER_EMACS_ADAPTER")))
    (pcase (dapper-test--env "DAPPER_EMACS_FORM")
      ("port" `(host "127.0.0.1" port ,(string-to-number (dapper-test--env "DAPPER_EMACS_PORT"))))
      ("autoport" `(command "node" command-args (,adapter "--port" :autoport) port :autoport host "127.0.0.1"))
      ("stdio" `(command "node" command-args (,adapter)))
      (form (error "DAPPER_EMACS_FORM is %s, not port, autoport or stdio" form)))))

(defun dapper-test--configure ()
  (let ((adapter (dapper-test--adapter-keys)))
    (add-to-list 'dape-configs
                 `(dapper
                   modes (python-mode python-ts-mode)
                   ,@adapter
                   :type "dapper"
                   :request "launch"
                   :program dape-buffer-default
                   :cwd dape-cwd
                   :console "internalConsole"))
    (add-to-list 'dape-configs
                 `(dapper-attach
                   modes (python-mode python-ts-mode)
                   ,@adapter
                   :type "dapper"
                   :request "attach"
                   :connect (:host "127.0.0.1" :port 5678)))))

;;; Helpers: waiting, expecting, asking dape.

(defun dapper-test--wait (what predicate &optional seconds)
  "Return PREDICATE's first non-nil value, waiting for it; fail saying WHAT."
  (let ((deadline (+ (float-time) (or seconds dapper-test-seconds)))
        value)
    (while (and (not (setq value (funcall predicate)))
                (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (or value
        (error "Timed out after %s s waiting for %s" (or seconds dapper-test-seconds) what))))

(defun dapper-test--expect (what expected actual)
  "Fail unless ACTUAL is EXPECTED (`equal'); WHAT says what it is."
  (unless (equal expected actual)
    (error "%s: expected %S, got %S" what expected actual))
  actual)

(defun dapper-test--call (what function &rest args)
  "Call FUNCTION, a dape function taking a callback (BODY ERROR) last, with ARGS.
Return the BODY it is called with; fail saying WHAT on an error or a timeout."
  (let (done body failure)
    (apply function (append args (list (lambda (&optional response error)
                                         (setq done t body response failure error)))))
    (dapper-test--wait what (lambda () done))
    (when failure (error "%s failed: %s" what failure))
    body))

(defun dapper-test--messages (kind name)
  "The recorded messages of KIND and NAME, oldest first, as (BODY . CONN)."
  (cl-loop for (k n body conn) in (reverse dapper-test--log)
           when (and (eq k kind) (eq n name)) collect (cons body conn)))

(defun dapper-test--fixture (file)
  (expand-file-name file (dapper-test--env "DAPPER_EMACS_FIXTURES")))

(defun dapper-test--marker (file name)
  "The line of FILE (under the fixtures) that has the marker # BP:NAME."
  (with-temp-buffer
    (insert-file-contents (dapper-test--fixture file))
    (unless (re-search-forward (format "# BP:%s\\b" (regexp-quote name)) nil t)
      (error "No marker BP:%s in %s" name file))
    (line-number-at-pos)))

(defun dapper-test--toggle-breakpoint (file name)
  "Toggle a breakpoint in FILE's buffer at marker NAME, as a user does; return it."
  (with-current-buffer (find-file-noselect (dapper-test--fixture file))
    (goto-char (point-min))
    (forward-line (1- (dapper-test--marker file name)))
    (dape-breakpoint-toggle)
    (car (dape--breakpoints-at-point))))

(defun dapper-test--verified-p (breakpoint)
  "Whether dape draws BREAKPOINT verified (not greyed) for a live connection."
  (let ((verified (dape--breakpoint-verified breakpoint)))
    (cl-some (lambda (conn) (plist-get verified conn)) (dape--live-connections))))

(defun dapper-test--start (key file &rest options)
  "Run `dape' with configuration KEY from FILE's buffer, OPTIONS overriding.
DAPPER_EMACS_PYTHON, when set, is the configuration's :python."
  (when-let* ((python (getenv "DAPPER_EMACS_PYTHON")))
    (setq options (append options (list :python python))))
  (with-current-buffer (find-file-noselect (dapper-test--fixture file))
    (dape (dape--config-eval key options))))

(defvar dapper-test--stops-seen 0
  "How many `stopped' events the scenario has looked at.")

(defun dapper-test--next-stop (what)
  "Wait for the next `stopped' event and for dape to show it; return its connection.
Shown means: the connection has a stopped thread whose stack frames dape fetched."
  (let ((stop (dapper-test--wait
               (format "the program to stop (%s)" what)
               (lambda () (nth dapper-test--stops-seen (dapper-test--messages 'event 'stopped))))))
    (cl-incf dapper-test--stops-seen)
    (let ((conn (cdr stop)))
      (dapper-test--wait (format "dape to show the stop (%s)" what)
                         (lambda () (and (dape--stopped-threads conn)
                                         (plist-get (dape--current-thread conn) :stackFrames)
                                         (zerop (jsonrpc-continuation-count conn)))))
      (dapper-test--expect (format "the reason of the stop (%s)" what)
                           (plist-get (car stop) :reason)
                           (dape--state-reason conn))
      conn)))

(defun dapper-test--frames (conn)
  "The stopped thread's frames as dape's stack buffer loads them: ((NAME LINE PATH) ...)."
  (let ((thread (dape--current-thread conn)))
    (dapper-test--call "the stack trace" #'dape--stack-trace conn thread dape-stack-trace-levels)
    (mapcar (lambda (frame)
              (list (plist-get frame :name) (plist-get frame :line)
                    (plist-get (plist-get frame :source) :path)))
            (plist-get thread :stackFrames))))

(defun dapper-test--variables (conn)
  "The top frame's first scope as dape's scope buffer loads it: (SCOPE (NAME . VALUE) ...)."
  (let ((frame (dape--current-stack-frame conn)))
    (dapper-test--call "the scopes" #'dape--scopes conn frame)
    (let ((scope (car (plist-get frame :scopes))))
      (dapper-test--call "the variables" #'dape--variables conn scope)
      (cons (plist-get scope :name)
            (mapcar (lambda (variable) (cons (plist-get variable :name) (plist-get variable :value)))
                    (plist-get scope :variables))))))

(defun dapper-test--variable (conn name)
  (let ((variables (dapper-test--variables conn)))
    (or (cdr (assoc name (cdr variables)))
        (error "No variable %s in scope %s: %S" name (car variables) (cdr variables)))))

(defun dapper-test--evaluate (conn expression)
  "EXPRESSION's value in the top frame, as dape's REPL asks for it."
  (plist-get (dapper-test--call (format "evaluate %s" expression) #'dape--evaluate-expression
                                conn (plist-get (dape--current-stack-frame conn) :id) expression "repl")
             :result))

(defun dapper-test--output (category)
  "What the `output' events of CATEGORY said, in order."
  (mapconcat (lambda (event) (plist-get (car event) :output))
             (cl-remove-if-not (lambda (event) (equal (plist-get (car event) :category) category))
                               (dapper-test--messages 'event 'output))
             ""))

(defun dapper-test--exit-codes ()
  "The exit codes of the `exited' events, in order, with whether each came from a child."
  (mapcar (lambda (event) (list (plist-get (car event) :exitCode) (if (dape--parent (cdr event)) 'child 'root)))
          (dapper-test--messages 'event 'exited)))

(defun dapper-test--connections ()
  "Every connection that took part in the scenario, children included."
  (cl-remove-duplicates (mapcar (lambda (entry) (nth 3 entry)) dapper-test--log)))

(defun dapper-test--await-end ()
  "Wait until every connection of the scenario has closed: every session ended.
`dape--live-connections' is not enough: it leaves out the children of a root that
has closed, and a child's adapter of its own may still be passing on its last events."
  (dapper-test--wait "every session to end (dape's connections to close)"
                     (lambda () (and (null (dape--live-connections))
                                     (not (cl-some #'jsonrpc-running-p (dapper-test--connections)))))))

(defun dapper-test--top (conn)
  (car (dapper-test--frames conn)))

;;; Scenarios

(defun dapper-test-launch ()
  "Launch main.py with a breakpoint in compute: stack, variables, evaluate, step, exit code."
  (let* ((main (dapper-test--fixture "main.py"))
         (line (dapper-test--marker "main.py" "main"))
         (breakpoint (dapper-test--toggle-breakpoint "main.py" "main")))
    (dapper-test--start 'dapper "main.py" :args ["7"])
    (let ((conn (dapper-test--next-stop "at the breakpoint in compute")))
      (dapper-test--expect "the reason of the first stop" "breakpoint"
                           (dape--state-reason conn))
      (dapper-test--expect "the stack at the breakpoint (name line path)"
                           `(("compute" ,line ,main)
                             ("<module>" ,(with-temp-buffer
                                            (insert-file-contents main)
                                            (re-search-forward "^table, total = compute(4)")
                                            (line-number-at-pos))
                              ,main))
                           (dapper-test--frames conn))
      (dapper-test--expect "the breakpoint is verified in dape" t
                           (and (dapper-test--verified-p breakpoint) t))
      (let ((variables (dapper-test--variables conn)))
        (dapper-test--expect "the first scope" "Locals" (car variables))
        (dapper-test--expect "count in Locals" "4" (cdr (assoc "count" (cdr variables))))
        (dapper-test--expect "items in Locals" "[0, 1, 4, 9]" (cdr (assoc "items" (cdr variables)))))
      (dapper-test--expect "evaluate sum(items) * 10" "140" (dapper-test--evaluate conn "sum(items) * 10"))
      (dape-next conn)
      (setq conn (dapper-test--next-stop "after stepping over"))
      (dapper-test--expect "the reason of the stop after `dape-next'" "step"
                           (dape--state-reason conn))
      (dapper-test--expect "where `dape-next' stopped (name line)" `("compute" ,(1+ line))
                           (butlast (dapper-test--top conn)))
      (dapper-test--expect "total after stepping over the line that sets it" "15"
                           (dapper-test--variable conn "total"))
      (dape-continue conn))
    (dapper-test--await-end)
    (dapper-test--expect "the exit code dape was told" '((7 root)) (dapper-test--exit-codes))
    (dapper-test--expect "the program's stdout" "hello total=15\n" (dapper-test--output "stdout"))
    (dapper-test--expect "the program's stderr" "to stderr\n" (dapper-test--output "stderr"))))

(defun dapper-test-pending ()
  "A breakpoint in a module imported later: dape draws it verified before the import."
  (let ((late (dapper-test--toggle-breakpoint "breakpoints/late.py" "late")))
    (dapper-test--toggle-breakpoint "breakpoints/app.py" "after")
    (dapper-test--start 'dapper "breakpoints/app.py")
    (let ((conn (dapper-test--next-stop "at the breakpoint before the import")))
      (dapper-test--expect "where the program stopped first" "main" (car (dapper-test--top conn)))
      (dapper-test--expect "the breakpoint in late.py, not imported yet, drawn verified" t
                           (and (dapper-test--verified-p late) t))
      (dape-continue conn)
      (setq conn (dapper-test--next-stop "at the breakpoint in late.py"))
      (dapper-test--expect "where the program stopped next (name line)"
                           `("triple" ,(dapper-test--marker "breakpoints/late.py" "late"))
                           (butlast (dapper-test--top conn)))
      (dape-continue conn))
    (dapper-test--await-end)
    (dapper-test--expect "the exit code dape was told" '((0 root)) (dapper-test--exit-codes))))

(defun dapper-test-child ()
  "A child process with a breakpoint: dape gets startDebugging and the child stops."
  (dapper-test--toggle-breakpoint "children/worker.py" "worker")
  (dapper-test--start 'dapper "children/popen_parent.py")
  (let ((conn (dapper-test--next-stop "in the child, at its breakpoint")))
    (let ((requests (dapper-test--messages 'request 'startDebugging)))
      (dapper-test--expect "how many startDebugging requests dape got" 1 (length requests))
      (dapper-test--expect "the child's configuration type" "dapper"
                           (plist-get (plist-get (car (car requests)) :configuration) :type)))
    (dapper-test--expect "the stopped session is a child session of dape's" t (and (dape--parent conn) t))
    (when (equal (getenv "DAPPER_EMACS_FORM") "stdio")
      (let ((child (jsonrpc--process conn))
            (parent (jsonrpc--process (dape--parent conn))))
        (dapper-test--expect "the command of the child session's adapter"
                             (list "node" (dapper-test--env "DAPPER_EMACS_ADAPTER")) (process-command child))
        (dapper-test--expect "the child session's adapter is a process of its own" t
                             (/= (process-id child) (process-id parent)))))
    (dapper-test--expect "where the child stopped (name line)"
                         `("double" ,(dapper-test--marker "children/worker.py" "worker"))
                         (butlast (dapper-test--top conn)))
    (dapper-test--expect "value in the child's Locals" "21" (dapper-test--variable conn "value"))
    (dape-continue conn))
  (dapper-test--await-end)
  ;; Through one adapter the child's `exited' comes first, as the child ended first. With
  ;; an adapter per session (stdio) the child's travels one more hop, through its own
  ;; adapter, and may reach dape after the parent's.
  (dapper-test--expect "the exit codes dape was told (child, then parent)" '((3 child) (0 root))
                       (let ((codes (dapper-test--exit-codes)))
                         (if (equal (getenv "DAPPER_EMACS_FORM") "stdio")
                             (sort codes (lambda (a b) (eq (cadr a) 'child)))
                           codes)))
  ;; The child writes to the stdout it inherited, the launch's pipe: the root session's output.
  (dapper-test--expect "the programs' stdout" "worker 21 -> 42\nparent saw 3\n" (dapper-test--output "stdout")))

(defun dapper-test-attach ()
  "Attach to main.py started with `python -m dapperdbg --listen 0 --wait-for-client'."
  (let ((line (dapper-test--marker "main.py" "main")))
    (dapper-test--toggle-breakpoint "main.py" "main")
    (dapper-test--start 'dapper-attach "main.py"
                        :connect `(:host "127.0.0.1" :port ,(string-to-number (dapper-test--env "DAPPER_EMACS_ATTACH_PORT"))))
    (let ((conn (dapper-test--next-stop "in the attached program, at the breakpoint")))
      (dapper-test--expect "where the attached program stopped (name line)" `("compute" ,line)
                           (butlast (dapper-test--top conn)))
      (dapper-test--expect "count in Locals" "4" (dapper-test--variable conn "count"))
      (dape-continue conn))
    (dapper-test--await-end)
    (dapper-test--expect "the exit code dape was told" '((5 root)) (dapper-test--exit-codes))))

;; A program of the scenario's own, in a scratch folder (this machine and the sid root
;; share /tmp), since the scenario edits it.
(defconst dapper-test--calls-program
  "def g(x):\n    y = x + 1\n    return y * 10\n\n\ndef f(x):\n    return g(x) + 1\n\n\nprint(\"result\", f(1), flush=True)\n")

(defun dapper-test-restart ()
  "Stopped in g, edit its caller f, hot reload, `dape-restart-frame' on f's frame: g
unwinds and f runs its new code from its first line."
  (let* ((dir (make-temp-file "dapper-emacs-restart-" t))
         (file (expand-file-name "calls.py" dir))
         (frames (lambda (conn) (mapcar #'butlast (dapper-test--frames conn)))))
    (unwind-protect
        (progn
          (with-temp-file file (insert dapper-test--calls-program))
          (with-current-buffer (find-file-noselect file)
            (goto-char (point-min))
            (forward-line 2)
            (dape-breakpoint-toggle)
            (let ((python (getenv "DAPPER_EMACS_PYTHON")))
              (dape (dape--config-eval 'dapper (and python (list :python python))))))
          (let ((conn (dapper-test--next-stop "at the breakpoint in g")))
            (dapper-test--expect "the stack at the breakpoint" '(("g" 3) ("f" 7) ("<module>" 10))
                                 (funcall frames conn))
            ;; The user edits f and saves; a command of theirs sends the reload.
            (with-current-buffer (find-file-noselect file)
              (goto-char (point-min))
              (search-forward "return g(x) + 1")
              (replace-match "return g(x) + 2" t t)
              (save-buffer))
            (dapper-test--expect "what the reload updated" ["f"]
                                 (plist-get (dapper-test--call "dapper/hotReload" #'dape-request conn
                                                               "dapper/hotReload" `(:source (:path ,file)))
                                            :updated))
            (let ((caller (nth 1 (plist-get (dape--current-thread conn) :stackFrames))))
              (dape-restart-frame conn (plist-get caller :id)))
            (setq conn (dapper-test--next-stop "on f's first line, after the restart"))
            (dapper-test--expect "the reason of the stop" "restart" (dape--state-reason conn))
            (dapper-test--expect "the stack after the restart (g unwound)" '(("f" 7) ("<module>" 10))
                                 (funcall frames conn))
            (dapper-test--expect "x in f's Locals" "1" (dapper-test--variable conn "x"))
            (dape-continue conn)
            (setq conn (dapper-test--next-stop "at the breakpoint in g, called by the new f"))
            (dapper-test--expect "the stack, as deep as before" '(("g" 3) ("f" 7) ("<module>" 10))
                                 (funcall frames conn))
            (dape-continue conn))
          (dapper-test--await-end)
          (dapper-test--expect "the exit code dape was told" '((0 root)) (dapper-test--exit-codes))
          (dapper-test--expect "the program's stdout, from f's new code" "result 22\n"
                               (dapper-test--output "stdout")))
      (delete-directory dir t))))

;;; Running a scenario

(defun dapper-test--messages-text ()
  "The recorded messages, oldest first, one line each, for a failure's report."
  (mapconcat (lambda (entry)
               (cl-destructuring-bind (kind name body conn) entry
                 (format "%s %s [%s] %s" kind name (jsonrpc-name conn)
                         (truncate-string-to-width (json-encode body) 300 nil nil "…"))))
             (reverse dapper-test--log) "\n"))

(defun dapper-test--repl-text ()
  "What dape's REPL buffer shows (its messages and warnings, the program's output)."
  (if-let* ((repl (get-buffer "*dape-repl*")))
      (with-current-buffer repl (buffer-string))
    "(no REPL buffer)"))

(defun dapper-test-main ()
  "Run the scenario named by the next command-line argument, then exit 0 or 1."
  (let ((scenario (pop command-line-args-left)))
    (condition-case failure
        (progn
          (dapper-test--configure)
          (funcall (intern (format "dapper-test-%s" scenario)))
          (dapper-test--expect "the dapper/* events dape got (it does not ask for them)" nil
                               (cl-loop for (kind name) in dapper-test--log
                                        when (and (eq kind 'event) (string-prefix-p "dapper/" (symbol-name name)))
                                        collect name))
          (princ (format "ok: %s\n" scenario))
          (when (getenv "DAPPER_EMACS_VERBOSE")
            (princ (format "%s\n--- dape's REPL ---\n%s\n" (dapper-test--messages-text) (dapper-test--repl-text))))
          (kill-emacs 0))
      (t
       (princ (format "FAILED: %s: %s\n--- the DAP messages (dape's view) ---\n%s\n--- dape's REPL ---\n%s\n"
                      scenario (error-message-string failure) (dapper-test--messages-text)
                      (dapper-test--repl-text)))
       (kill-emacs 1)))))

;;; driver.el ends here
