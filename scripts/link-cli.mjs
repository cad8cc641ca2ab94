console.log('link placeholder');
