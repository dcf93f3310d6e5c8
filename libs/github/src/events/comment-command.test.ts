import { parseCommentCommand } from './comment-command';

describe('parseCommentCommand', () => {
  it('when a comment says /railyard merge, then it is a merge without a priority', () => {
    expect(parseCommentCommand('/railyard merge')).toEqual({ kind: 'merge' });
  });

  it('when a priority is named or numbered, then the merge carries it', () => {
    expect(parseCommentCommand('/railyard merge --priority urgent')).toEqual({ kind: 'merge', priority: 'urgent' });
    expect(parseCommentCommand('/railyard merge --priority=HIGH')).toEqual({ kind: 'merge', priority: 'high' });
    expect(parseCommentCommand('/railyard merge --priority 0')).toEqual({ kind: 'merge', priority: 0 });
    expect(parseCommentCommand('/railyard merge --priority 255')).toEqual({ kind: 'merge', priority: 255 });
  });

  it('when the priority is out of range or unknown, then the command is invalid', () => {
    expect(parseCommentCommand('/railyard merge --priority 256')).toMatchObject({ kind: 'invalid' });
    expect(parseCommentCommand('/railyard merge --priority soon')).toMatchObject({ kind: 'invalid' });
    expect(parseCommentCommand('/railyard merge --priority')).toMatchObject({ kind: 'invalid' });
    expect(parseCommentCommand('/railyard merge --now')).toMatchObject({ kind: 'invalid' });
  });

  it('when a comment says cancel or restart, then those are the commands', () => {
    expect(parseCommentCommand('/railyard cancel')).toEqual({ kind: 'cancel' });
    expect(parseCommentCommand('  /Railyard RESTART  ')).toEqual({ kind: 'restart' });
    expect(parseCommentCommand('/railyard cancel now')).toMatchObject({ kind: 'invalid' });
  });

  it('when a comment says /trunk merge, then it is a merge, and other /trunk verbs are not understood', () => {
    expect(parseCommentCommand('/trunk merge --priority low')).toEqual({ kind: 'merge', priority: 'low' });
    expect(parseCommentCommand('/trunk cancel')).toMatchObject({ kind: 'invalid' });
  });

  it('when the command is on a later line, then it is found; quoted or glued words are not commands', () => {
    expect(parseCommentCommand('Looks good.\r\n/railyard merge\nthanks')).toEqual({ kind: 'merge' });
    expect(parseCommentCommand('> /railyard merge')).toBeNull();
    expect(parseCommentCommand('/railyardmerge')).toBeNull();
    expect(parseCommentCommand('please /railyard merge')).toBeNull();
    expect(parseCommentCommand('LGTM')).toBeNull();
  });

  it('when /railyard has no verb or an unknown one, then it is invalid', () => {
    expect(parseCommentCommand('/railyard')).toMatchObject({ kind: 'invalid' });
    expect(parseCommentCommand('/railyard deploy')).toMatchObject({ kind: 'invalid' });
  });
});
