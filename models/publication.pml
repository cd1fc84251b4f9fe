/* The publication protocol of factline, for spin (docs/reliability.md, "The publication protocol, model-checked").

   W workers take run ids from a broker (Celery: acks_late, reject_on_worker_lost), R runs (ticks) of one
   pipeline share T topics. A run: take (compare-and-set queued -> running, or continue a run whose owner
   died), settle the outbox (pending intents of runs no longer running: lookup by key on the target), claim
   a topic under the writer lock (resumes first; never one another running run holds; never a registered
   one), [review: the run waits, a reviewer approves or rejects, an approval re-sends it], publish (the
   ledger first, then the target's lookup by key, then the write-ahead intent, then the POST, then the row
   and the intent settled in one transaction), register, close. Every step is one transaction; a worker may
   die between any two (at most MAXCRASH times): its run stays `running` under a dead owner, and its
   message is redelivered or lost. The reconciler re-sends a message for a queued, approved or orphaned run
   that has none in the broker; or (the inline daemon) the next start closes a dead run as interrupted and
   settles the outbox. A run that finds no resumable topic may take any unused one (a feed's order changes).

   Variants (spin -D...): NO_INTENT (publish without the write-ahead intent), NO_LOOKUP (no lookup by key,
   neither at the start nor before the POST), REVIEW (the review gate), STALE (a live holder is taken for dead,
   as a heartbeat late by more than 3 beats would make it: two workers on one run; docs/reliability.md). Checked:
     at most one post per topic on the target           assert after every POST
     an approved run publishes at most once              assert after every POST
     once quiet (timeout): every post has its ledger row, every run is closed, every pending intent settled
*/

#ifndef W
#define W 2
#endif
#ifndef R
#define R 2
#endif
#ifndef T
#define T 1
#endif
#ifndef MAXCRASH
#define MAXCRASH 2
#endif

#define QUEUED 0
#define RUNNING 1
#define AWAITING 2
#define APPROVED 3
#define CLOSED 4
#define NO_TOPIC 255

mtype = { none };
byte status[R];          /* all QUEUED: the scheduler claimed every tick and sent it */
byte owner[R];           /* worker id of the holder */
byte owner_life[R];      /* the holder's life (a worker that dies comes back as its next life) */
byte life[W];
byte topic[R];           /* NO_TOPIC until claimed */
byte posts_by[R];        /* POSTs this run made (an approved run: at most one) */
byte intent[T];          /* 0 none, 1 pending, 2 settled */
byte intent_run[T];
bool row[T];             /* the publications row */
bool reg[T];             /* the registration */
byte posts[T];           /* what the target holds under the topic's key */
byte crashes;
chan broker = [2 * R] of { byte };

#define alive(x) (life[owner[x]] == owner_life[x])

/* a worker may die here: its run stays running under a dead owner; the message is redelivered or lost */
#define CRASH_POINT \
  if \
  :: crashes < MAXCRASH -> \
       atomic { crashes++; life[w]++; \
                if :: broker!r :: skip fi }; \
       goto endnext \
  :: true \
  fi

inline settle_outbox(k) {
#ifndef NO_LOOKUP
#ifndef NO_INTENT
  atomic {
    k = 0;
    do
    :: k < T ->
         if
         :: intent[k] == 1 && status[intent_run[k]] != RUNNING && posts[k] > 0 -> row[k] = true; intent[k] = 2
         :: else -> skip
         fi;
         k++
    :: else -> break
    od
  }
#endif
#endif
  skip
}

inline claim_topic() {
  atomic {
    if
    :: topic[r] != NO_TOPIC -> skip   /* the claim belongs to the run: a continuation keeps it */
    :: else ->
         best = NO_TOPIC; u = 0;
         do
         :: u < T ->
              busy = false; q = 0;
              do
              :: q < R ->
                   if
                   :: (q != r && topic[q] == u && (status[q] == RUNNING || status[q] == AWAITING || status[q] == APPROVED)) -> busy = true
                   :: else -> skip
                   fi;
                   q++
              :: else -> break
              od;
              if
              :: (!reg[u] && !busy && (row[u] || intent[u] == 1)) -> best = u; break   /* resumes first */
              :: (!reg[u] && !busy && best == NO_TOPIC) -> best = u                    /* else any unused one: */
              :: (!reg[u] && !busy && best == NO_TOPIC) -> skip                        /* a feed's order changes */
              :: else -> skip
              fi;
              u++
         :: else -> break
         od;
         topic[r] = best
    fi
  }
}

inline publish() {
  t = topic[r];
  if
  :: row[t] -> goto registering                      /* the ledger first */
  :: else -> skip
  fi;
#ifndef NO_LOOKUP
  atomic {                                           /* then the target, by key */
    if
    :: posts[t] > 0 -> row[t] = true; intent[t] = 2
    :: else -> skip
    fi
  };
  if :: row[t] -> goto registering :: else -> skip fi;
  CRASH_POINT;
#endif
#ifndef NO_INTENT
  atomic { intent[t] = 1; intent_run[t] = r };       /* write-ahead, committed before the request */
  CRASH_POINT;
#endif
  atomic { posts[t]++; posts_by[r]++;                /* the request to the target */
           assert(posts[t] <= 1); assert(posts_by[r] <= 1) };
  CRASH_POINT;
  atomic { row[t] = true; intent[t] = 2 };           /* its answer: the row, the intent settled, one transaction */
}

proctype Worker(byte w) {
  byte r, t, best, u, q;
  bool review_done, busy;
endnext:
  do
  :: broker?r ->
       review_done = false;
       atomic {
         if
         :: status[r] == QUEUED -> status[r] = RUNNING; owner[r] = w; owner_life[r] = life[w]
         :: status[r] == APPROVED -> status[r] = RUNNING; owner[r] = w; owner_life[r] = life[w]; review_done = true
         :: status[r] == RUNNING && !alive(r) -> owner[r] = w; owner_life[r] = life[w]; review_done = true
         :: status[r] == RUNNING && alive(r) -> broker!r; goto endnext   /* held: retried later */
#ifdef STALE
         :: status[r] == RUNNING && alive(r) && crashes < MAXCRASH ->          /* a live holder judged dead */
              crashes++; owner[r] = w; owner_life[r] = life[w]; review_done = true  /* (a heartbeat late) */
#endif
         :: status[r] == AWAITING || status[r] == CLOSED -> goto endnext  /* acked, nothing to do */
         fi
       };
       CRASH_POINT;
       settle_outbox(t);
       CRASH_POINT;
       claim_topic();
       if
       :: topic[r] == NO_TOPIC -> status[r] = CLOSED; goto endnext     /* every topic used */
       :: else -> skip
       fi;
       CRASH_POINT;
#ifdef REVIEW
       if
       :: !review_done -> status[r] = AWAITING; goto endnext           /* held for review, topic kept */
       :: else -> skip
       fi;
#endif
       publish();
registering:
       CRASH_POINT;
       atomic { t = topic[r]; if :: row[t] -> reg[t] = true :: else -> skip fi };
       CRASH_POINT;
       status[r] = CLOSED
  od
}

/* the helpers below act only when there is something to do, so that `timeout` (quiet) can be reached */
#define AWAITS(x) (x < R && status[x] == AWAITING)
#define LOST(x) (x < R && !broker??[eval(x)] && (status[x] == QUEUED || status[x] == APPROVED || (status[x] == RUNNING && !alive(x))))
#define ANY(P) (P(0) || P(1) || P(2) || P(3))   /* R <= 4 */

#ifdef REVIEW
proctype Reviewer() {
  byte q;
end:
  do
  :: atomic { ANY(AWAITS) ->
       q = 0; do :: AWAITS(q) -> break :: else -> q++ od;
       if
       :: status[q] = APPROVED; broker!q               /* approve: the run is continued */
       :: status[q] = CLOSED                           /* reject */
       fi }
  od
}
#endif

proctype Reconciler() {
  byte q, k;
end:
  do
  :: atomic { ANY(LOST) ->
       q = 0; do :: LOST(q) -> break :: else -> q++ od;
       if
       :: broker!q                                     /* Celery: the scheduler re-sends a lost tick */
       :: status[q] == RUNNING -> status[q] = CLOSED; settle_outbox(k)   /* inline: the next start closes a */
       fi }                                            /* dead run as interrupted and settles the outbox */
  od
}

proctype Quiet() {
  byte i;
  timeout ->
  atomic {
    i = 0;
    do
    :: i < T -> assert(posts[i] == 0 || row[i]); assert(intent[i] != 1 || posts[i] == 0); i++
    :: else -> break
    od;
    i = 0;
    do
    :: i < R -> assert(status[i] == CLOSED); i++
    :: else -> break
    od
  }
}

init {
  atomic {
    byte i = 0;
    do :: i < R -> topic[i] = NO_TOPIC; broker!i; i++ :: else -> break od;
    i = 0;
    do :: i < W -> run Worker(i); i++ :: else -> break od;
    run Reconciler();
#ifdef REVIEW
    run Reviewer();
#endif
    run Quiet()
  }
}
